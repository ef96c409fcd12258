// How long an orchestrator takes from its process's start until it polls its task queue (issue 45):
// bundling its workflows at start (webpack in a child process, the default) or from a bundle built
// ahead of time (`champion-loop bundle --out FILE`, then `worker orchestrator --workflow-bundle
// FILE`), side by side on one dev server, the two kinds alternating; and each worker's peak memory.
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import { execa } from 'execa';
import { timestampMs } from '../../src/client/proto-time.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import { WORKFLOWS_PATH } from '../../src/workers/orchestrator-worker.js';
import { writeWorkflowBundle } from '../../src/workers/workflow-bundle.js';
import { ORCHESTRATOR_QUEUE } from '../../src/workflows/queues.js';
import { processMemory, type BenchContext } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { startBenchServer } from '../lib/server.js';
import { percentile } from '../lib/stats.js';

const BIN = path.join(PROJECT_ROOT, 'bin', 'champion-loop.js');
type Start = 'bundling' | 'prebuilt';

/** Whether a worker of process `pid` has polled the orchestrator's queue since `since`. */
async function polls(client: Client, pid: number, since: number): Promise<boolean> {
  const { pollers } = await client.workflowService.describeTaskQueue({
    namespace: client.options.namespace,
    taskQueue: { name: ORCHESTRATOR_QUEUE, kind: proto.temporal.api.enums.v1.TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
    taskQueueType: proto.temporal.api.enums.v1.TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW,
  });
  return (pollers ?? []).some(
    (poller) => poller.identity?.startsWith(`${pid}@`) === true && timestampMs(poller.lastAccessTime) >= since,
  );
}

/** One orchestrator process started, timed until it polls, its peak memory read, then stopped. */
async function startOnce(
  address: string,
  namespace: string,
  client: Client,
  start: Start,
  bundle: string,
): Promise<{ ms: number; peakMiB: number | null }> {
  const since = Date.now();
  const extra = start === 'prebuilt' ? ['--workflow-bundle', bundle] : [];
  const child = execa(
    process.execPath,
    [BIN, 'worker', 'orchestrator', '--address', address, '--namespace', namespace, ...extra],
    {
      reject: false,
      stdio: 'ignore',
    },
  );
  const pid = child.pid ?? 0;
  try {
    for (;;) {
      if (child.exitCode !== null)
        throw new Error(`the ${start} orchestrator exited (${child.exitCode}) before it polled`);
      if (await polls(client, pid, since - 1_000)) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const ms = Date.now() - since;
    return { ms, peakMiB: (await processMemory(pid))?.hwmMiB ?? null };
  } finally {
    child.kill('SIGTERM');
    await child;
  }
}

export async function runDeploy(ctx: BenchContext): Promise<{ figures: Figure[]; details: Record<string, unknown> }> {
  const runs = ctx.options.quick ? 3 : 5;
  const server = await startBenchServer(ctx.cli, 'deploy');
  const connection = await Connection.connect({ address: server.address });
  try {
    const client = new Client({ connection, namespace: server.namespace });
    const bundle = path.join(server.dir, 'workflows.js');
    const built = Date.now();
    await writeWorkflowBundle(WORKFLOWS_PATH, bundle);
    const bundleMs = Date.now() - built;
    const samples: Record<Start, { ms: number; peakMiB: number | null }[]> = { bundling: [], prebuilt: [] };
    for (let run = 0; run < runs; run += 1)
      for (const start of ['bundling', 'prebuilt'] as const) {
        const sample = await startOnce(server.address, server.namespace, client, start, bundle);
        samples[start].push(sample);
        ctx.log(
          `deploy: ${start} orchestrator polled after ${sample.ms} ms (peak ${sample.peakMiB?.toFixed(0) ?? '?'} MiB)`,
        );
      }
    const median = (start: Start) =>
      percentile(
        samples[start].map((s) => s.ms),
        50,
      );
    const peak = (start: Start) => Math.max(...samples[start].map((s) => s.peakMiB ?? 0));
    const ratio = median('bundling') / median('prebuilt');
    return {
      figures: [
        figure('deploy', 'orchestrator start to first poll, bundling at start (median)', median('bundling'), 'ms'),
        figure('deploy', 'the same from a prebuilt bundle (--workflow-bundle, median)', median('prebuilt'), 'ms'),
        figure(
          'deploy',
          'start time, bundling / prebuilt (side by side)',
          ratio,
          'x',
          null,
          `${runs} starts each, alternating`,
        ),
        figure(
          'deploy',
          "the worker's peak memory, bundling at start",
          peak('bundling'),
          'MiB',
          null,
          'webpack runs in a child process',
        ),
        figure('deploy', "the worker's peak memory, prebuilt bundle", peak('prebuilt'), 'MiB'),
        figure('deploy', "'champion-loop bundle' (once, ahead of time)", bundleMs, 'ms'),
      ],
      details: { runs, bundleMs, samples },
    };
  } finally {
    await connection.close();
    await server.dispose();
  }
}
