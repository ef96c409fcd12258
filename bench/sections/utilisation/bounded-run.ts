// The run itself: the lanes' workers started by placement, the loop run for its rounds while the
// event loop's delay (and, in-process, the process start floor) is sampled, then the workers'
// memory read and the workers stopped.
import { readFile } from 'node:fs/promises';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import type { Client } from '@temporalio/client';
import { sampleSpawnStarts } from '../../lib/baseline.js';
import type { BenchSession } from '../../lib/bench-session.js';
import { processMemory, type BenchContext } from '../../lib/context.js';
import { runRounds, type BoundedRun } from '../../lib/run-loop.js';
import type { Summary } from '../../lib/stats.js';
import { laneChild, type RunningWorkers } from '../../lib/workers.js';
import { LOOP_ID, type LoopPlan } from './plan.js';

/** How late the event loop ran its callbacks during the run, ms. */
interface LoopDelay {
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export interface MeasuredRun {
  readonly run: BoundedRun;
  /** In-process only: step spawn to its program's start, sampled every 2 s during the run. */
  readonly spawnDuringRun: Summary | undefined;
  readonly loopDelay: LoopDelay;
}

/** Peak and current memory of each worker process by name (none in-process). */
export type WorkerMemory = Map<string, { hwmMiB: number; rssMiB: number } | null>;

/** In-process: the orchestrator and lanes here, one trace for all; else a process per lane (a trace each) and the orchestrator's. */
export async function startWorkers(
  session: BenchSession,
  plan: LoopPlan,
  log: (line: string) => void,
): Promise<RunningWorkers> {
  if (plan.placement === null) {
    process.env.FIXTURE_TRACE = plan.traceFiles[0];
    return session.inProcess(plan.lanes);
  }
  delete process.env.FIXTURE_TRACE;
  log(`${plan.label}: starting ${plan.lanes.length} lane processes and an orchestrator process`);
  return session.children([
    { name: 'orchestrator', args: ['orchestrator'] },
    ...plan.lanes.map((lane, index) => laneChild(lane, { FIXTURE_TRACE: plan.traceFiles[index] as string })),
  ]);
}

/** The text of every trace file of the run ('' for one not written yet). */
export async function readTraces(plan: LoopPlan): Promise<string[]> {
  return Promise.all(plan.traceFiles.map((file) => readFile(file, 'utf8').catch(() => '')));
}

/** Jobs done so far: evaluate steps in the traces. */
async function jobsFinished(plan: LoopPlan): Promise<number> {
  return (await readTraces(plan)).reduce((sum, text) => sum + (text.match(/"step":"evaluate",/g)?.length ?? 0), 0);
}

/** Run the loop for its rounds, sampling the event loop's delay (and, in-process, the spawn floor) meanwhile. */
export async function runMeasured(ctx: BenchContext, client: Client, plan: LoopPlan): Promise<MeasuredRun> {
  const { options, log } = ctx;
  const { label } = plan;
  log(
    `${label}: ${plan.jobs} jobs (${options.rounds} rounds x ${options.candidates} candidates, training ${options.jobMinMs}-${options.jobMaxMs} ms) on ${options.lanes} lane slots`,
  );
  // The in-process run samples the last dispatch stage's floor under the run's own load.
  const sampler = plan.placement === null ? sampleSpawnStarts(2000) : null;
  // In-process, the lanes' activities and this process's event loop are one: how late does it run callbacks?
  const loopDelay = monitorEventLoopDelay({ resolution: 10 });
  // The histogram holds the sampling timer's whole interval: the delay is what exceeds it.
  const lateMs = (ns: number) => Math.max(0, ns / 1e6 - 10);
  loopDelay.enable();
  const run = await runRounds({
    client,
    loopId: LOOP_ID,
    folder: plan.folder,
    rounds: options.rounds,
    jobs: plan.jobs,
    finished: () => jobsFinished(plan),
    timeoutMs: 60 * 60_000,
    progress: (line) => log(`${label}: ${line}`),
  });
  loopDelay.disable();
  const spawnDuringRun = await sampler?.stop();
  return {
    run,
    spawnDuringRun,
    loopDelay: {
      p50: lateMs(loopDelay.percentile(50)),
      p99: lateMs(loopDelay.percentile(99)),
      max: lateMs(loopDelay.max),
      mean: lateMs(loopDelay.mean),
    },
  };
}

/** Read each worker process's memory, then stop the workers (their steps stop writing traces). */
export async function stopWorkers(workers: RunningWorkers): Promise<WorkerMemory> {
  const memory: WorkerMemory = new Map();
  for (const [name, pid] of workers.pids) memory.set(name, await processMemory(pid));
  await workers.stop();
  delete process.env.FIXTURE_TRACE;
  return memory;
}
