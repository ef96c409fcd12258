// The workers a benchmark runs: in this process (as the tests do) or as `champion-loop worker`
// child processes (as a deployment does), each lane pinned to its device.
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import { NativeConnection, type Worker, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { execa, type ResultPromise } from 'execa';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import { createLaneWorker, type LaneWorker } from '../../src/workers/lane-worker.js';
import { createOrchestratorWorker, runOrchestrator } from '../../src/workers/orchestrator-worker.js';
import type { LaneSpec } from './loop-folder.js';

const BIN = path.join(PROJECT_ROOT, 'bin', 'champion-loop.js');

export interface RunningWorkers {
  /** Child worker processes by name (lane-0, orchestrator, ...), for /proc/<pid>/status. */
  readonly pids: ReadonlyMap<string, number>;
  stop(): Promise<void>;
}

/** The orchestrator and every lane in this process; a lane's steps see CUDA_VISIBLE_DEVICES=<device>. */
export async function inProcessWorkers(options: {
  readonly address: string;
  readonly namespace: string;
  readonly bundle: WorkflowBundleWithSourceMap;
  readonly lanes: readonly LaneSpec[];
  readonly orchestrator?: boolean;
}): Promise<RunningWorkers & { readonly orchestrator: Worker | null }> {
  const connection = await NativeConnection.connect({ address: options.address });
  const common = { connection, namespace: options.namespace };
  const orchestrator =
    options.orchestrator === false
      ? null
      : await createOrchestratorWorker({ ...common, workflowBundle: options.bundle });
  const workers: Worker[] = orchestrator ? [orchestrator] : [];
  const lanes: LaneWorker[] = [];
  for (const lane of options.lanes) {
    const created = await createLaneWorker({
      ...common,
      host: lane.host,
      device: lane.device,
      slots: lane.slots,
      minFreeGiB: 0,
      // Not a CPU lane, so that its steps get CUDA_VISIBLE_DEVICES=<device>; no GPU to guard.
      readGpu: () => Promise.resolve({ kind: 'no-gpu', reason: 'bench' }),
    });
    workers.push(created.worker);
    lanes.push(created);
  }
  const running = workers.map((worker) =>
    worker === orchestrator ? runOrchestrator(worker, connection, options.namespace) : worker.run(),
  );
  return {
    orchestrator,
    pids: new Map(),
    async stop() {
      // A lane's shutdown waits for its jobs: stopped at once, they end now.
      for (const lane of lanes) lane.stopNow('the bench is over');
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.allSettled(running);
      await connection.close();
    },
  };
}

/** One `champion-loop worker ...` child process. */
export interface ChildWorkerSpec {
  readonly name: string;
  readonly args: readonly string[];
  readonly env?: Readonly<Record<string, string>>;
}

/** `worker gpu --cpu` for a lane: its own process, its own task queue. */
export function laneChild(lane: LaneSpec, env?: Readonly<Record<string, string>>): ChildWorkerSpec {
  return {
    name: `lane-${lane.device}`,
    args: [
      'gpu',
      '--cpu',
      '--host',
      lane.host,
      '--device',
      String(lane.device),
      '--slots',
      String(lane.slots),
      '--min-free-gib',
      '0',
    ],
    ...(env ? { env } : {}),
  };
}

/** Start child workers and wait until each says it is connected (the orchestrator bundles its workflows first). */
export async function childWorkers(options: {
  readonly address: string;
  readonly namespace: string;
  readonly logDir: string;
  readonly workers: readonly ChildWorkerSpec[];
  /** The command line of a worker; default: `champion-loop worker ARGS --address .. --namespace ..`. */
  readonly command?: (spec: ChildWorkerSpec) => string[];
  readonly readyTimeoutMs?: number;
}): Promise<RunningWorkers> {
  const children: ResultPromise[] = [];
  const pids = new Map<string, number>();
  const ready: Promise<void>[] = [];
  for (const spec of options.workers) {
    const log = createWriteStream(path.join(options.logDir, `${spec.name}.log`));
    const [program, ...args] = options.command?.(spec) ?? [
      process.execPath,
      BIN,
      'worker',
      ...spec.args,
      '--address',
      options.address,
      '--namespace',
      options.namespace,
    ];
    const child = execa(program as string, args, {
      cwd: PROJECT_ROOT,
      env: { ...spec.env },
      stdin: 'ignore',
      buffer: false,
      reject: false,
      cleanup: true,
    });
    children.push(child);
    if (child.pid !== undefined) pids.set(spec.name, child.pid);
    child.stdout.pipe(log);
    child.stderr.pipe(log);
    ready.push(
      new Promise<void>((resolve, reject) => {
        const timer = setTimeout(
          () =>
            reject(new Error(`worker ${spec.name} did not connect in time (log: ${options.logDir}/${spec.name}.log)`)),
          options.readyTimeoutMs ?? 180_000,
        );
        child.stdout.on('data', (chunk: Buffer) => {
          if (chunk.toString('utf8').includes('connected to')) {
            clearTimeout(timer);
            resolve();
          }
        });
        void child.then((result) => {
          clearTimeout(timer);
          reject(
            new Error(
              `worker ${spec.name} exited (${result.exitCode ?? result.signal ?? '?'}) before connecting; log: ${options.logDir}/${spec.name}.log`,
            ),
          );
        });
      }),
    );
  }
  const stop = async (): Promise<void> => {
    for (const child of children) child.kill('SIGTERM');
    await Promise.allSettled(children);
  };
  try {
    await Promise.all(ready);
  } catch (error) {
    await stop();
    throw error;
  }
  return { pids, stop };
}
