import { hostname } from 'node:os';
import { workerTracing } from '../tracing/tracing.js';
import type { DataConverter } from '@temporalio/common';
import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { eachLaneStep } from '../contract/steps.js';
import { workerSteps } from '../contract/worker-steps.js';
import { createLaneActivities } from '../activities/index.js';
import { probeLane } from '../activities/probe-lane.js';
import { loopDataConverter } from '../codec/data-converter.js';
import { durationMs } from '../config/duration.js';
import { laneQueue } from '../config/lanes.js';
import { DEFAULT_KILL_GRACE } from '../config/loop-config.js';
import { readGpuMemory, type GpuReading } from './gpu-memory.js';
import { LaneSteps } from './lane-steps.js';
import { memoryGuard } from './memory-guard.js';
import { DRAIN_NOTICE_EVERY_MS, DRAIN_NOTICE_MS } from './lane-notices.js';
import type { LaneDraining } from '../workflows/messages.js';
import { DEFAULT_MIN_FREE_PIDS, readPidsLimit, type PidsReading } from './pids-limit.js';
import { definedFields } from '../support/defined-fields.js';
import { pollerOptions, type PollerMode } from './pollers.js';

export interface LaneWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  /** Payload encryption; the environment's (loopDataConverter) when not given. */
  readonly dataConverter?: DataConverter;
  /** The host part of the lane's task queue name (default: this machine's host name). */
  readonly host?: string;
  readonly device: number;
  readonly slots: number;
  readonly minFreeGiB: number;
  /** Tasks the cgroup's pids limit must still allow before the lane takes a job (default 512; 0: no pids guard). */
  readonly minFreePids?: number;
  /** How long a stopped step's process group gets between SIGTERM and SIGKILL (default 25 s, inside a 30 s spot notice). */
  readonly killGraceMs?: number;
  /** How many later steps may start before one that waits for GPU memory (loop.yaml `overtaking`; default 0: none). */
  readonly overtaking?: number;
  /** A CPU lane (a box without GPUs, the demo): no memory guard, and no GPU visible to its jobs. */
  readonly cpu?: boolean;
  /** How the memory guard reads the device (tests pass a fake nvidia-smi). */
  readonly readGpu?: () => Promise<GpuReading>;
  /** How often the guard reads the device while it waits or its jobs run (default 5 s). */
  readonly gpuPollMs?: number;
  /** How the pids guard reads the cgroup (tests pass fake cgroup files). */
  readonly readPids?: () => Promise<PidsReading>;
  readonly log?: (message: string) => void;
  /** How it polls its queue (pollers.ts; default: CHAMPION_LOOP_POLLERS, else autoscaling). */
  readonly pollers?: PollerMode;
  /**
   * Tells the loops that use the lane that it drains or is up (lane-notices.ts): said once it is
   * created (up), and while it drains or stops (every minute until its worker has stopped).
   */
  readonly tellLoops?: (notice: LaneDraining) => Promise<unknown>;
}

/** A lane's SIGTERM-to-SIGKILL grace when neither loop.yaml nor a flag sets one. */
const DEFAULT_KILL_GRACE_MS = durationMs(DEFAULT_KILL_GRACE);

/** A lane worker and the two ways it ends. */
export interface LaneWorker {
  readonly worker: Worker;
  readonly queue: string;
  /**
   * Stop at once (SIGTERM, SIGINT): every running step's process group gets SIGTERM, then SIGKILL
   * after the kill grace; the worker takes no new job and ends once the steps have (they are retried).
   */
  stopNow(reason: string): void;
  /** Drain: take no new job, let the running ones finish, then end. Returns how many were running. */
  drain(): number;
}

/**
 * A GPU lane: polls its device's own task queue, runs training and evaluation subprocesses with
 * CUDA_VISIBLE_DEVICES pinned to that device, and takes work only while the device has room
 * (free memory less what its running jobs hold) and the cgroup's pids limit leaves headroom.
 * Its worker's shutdown never cancels a running job by itself: `stopNow` stops them, `drain`
 * lets them finish.
 */
export async function createLaneWorker(options: LaneWorkerOptions): Promise<LaneWorker> {
  const queue = laneQueue(options.host ?? hostname(), options.device);
  const stopping = new AbortController();
  let running = 0;
  const counted =
    <A extends unknown[], R>(activity: (...args: A) => Promise<R>) =>
    async (...args: A): Promise<R> => {
      running += 1;
      try {
        return await activity(...args);
      } finally {
        running -= 1;
      }
    };
  const guard = laneGuard(options, queue);
  const jobs = createLaneActivities({
    env: { CUDA_VISIBLE_DEVICES: options.cpu ? '' : String(options.device) },
    killGraceMs: options.killGraceMs ?? DEFAULT_KILL_GRACE_MS,
    stopping: stopping.signal,
    ...(guard.steps ? { steps: guard.steps } : {}),
  });
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    dataConverter: options.dataConverter ?? loopDataConverter(),
    taskQueue: queue,
    activities: workerSteps('lane', {
      ...eachLaneStep((name) => counted(jobs[name] as (input: never) => Promise<unknown>)),
      probeLane,
    }),
    // A shutdown (the SDK's own on SIGTERM, or a drain) waits for running jobs rather than
    // cancelling them: a drain lets them finish, and stopNow stops them with the kill grace.
    shutdownGraceTime: '3650 days',
    ...workerTracing(),
    ...pollerOptions(options.pollers),
    // A cancellation (stop --now) reaches a running step with the next heartbeat the worker sends:
    // steps beat every 5 s, and throttled by default the step could run on up to a minute after the stop.
    maxHeartbeatThrottleInterval: '5 seconds',
    defaultHeartbeatThrottleInterval: '5 seconds',
    tuner: {
      workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
      localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
      nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
      activityTaskSlotSupplier: guard.slots,
    },
  });
  const tell = options.tellLoops;
  // Up: a loop that marked the lane draining or down takes it back at once.
  if (tell) void tell({ lane: queue, forMs: 0 });
  const sayLeaving = leavingNotices(worker, queue, tell);
  return {
    worker,
    queue,
    stopNow: (reason) => {
      if (!stopping.signal.aborted) stopping.abort(new LaneStoppedError(`lane ${queue} stopped (${reason})`));
      if (worker.getState() === 'RUNNING') worker.shutdown();
      sayLeaving();
    },
    drain: () => {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      sayLeaving();
      return running;
    },
  };
}

/**
 * The lane's memory guard. A GPU lane knows its running steps, so its guard can tell what each
 * holds of the device, and each step starts through the guard, once there is room for what its
 * job may grow to; a CPU lane's guard sees no GPU, and only its slots (and the pids limit) decide.
 */
function laneGuard(options: LaneWorkerOptions, queue: string): ReturnType<typeof memoryGuard> {
  return memoryGuard({
    slots: options.slots,
    minFreeGiB: options.minFreeGiB,
    ...(options.cpu ? {} : { steps: new LaneSteps() }),
    ...definedFields({ pollMs: options.gpuPollMs, overtaking: options.overtaking }),
    read: options.cpu
      ? () => Promise.resolve({ kind: 'no-gpu', reason: 'a CPU lane' })
      : (options.readGpu ?? (() => readGpuMemory(options.device))),
    ...(options.minFreePids === 0
      ? {}
      : {
          minFreePids: options.minFreePids ?? DEFAULT_MIN_FREE_PIDS,
          readPids: options.readPids ?? (() => readPidsLimit()),
        }),
    ...(options.log ? { log: options.log } : {}),
    lane: { queue, device: options.device },
  });
}

/**
 * What says the worker is going (a drain, a stop): the loops send it nothing new, told at once
 * and again every DRAIN_NOTICE_EVERY_MS until the worker has stopped. Saying it twice is a no-op.
 */
function leavingNotices(worker: Worker, queue: string, tell: LaneWorkerOptions['tellLoops']): () => void {
  let leaving: NodeJS.Timeout | undefined;
  return (): void => {
    if (!tell || leaving !== undefined) return;
    const say = (): void => {
      if (['STOPPED', 'FAILED'].includes(worker.getState())) {
        clearInterval(leaving);
        return;
      }
      void tell({ lane: queue, forMs: DRAIN_NOTICE_MS });
    };
    leaving = setInterval(say, DRAIN_NOTICE_EVERY_MS);
    leaving.unref();
    say();
  };
}

/** Why a running step ended when its lane stopped at once: the job is retried (another lane, or this one again). */
class LaneStoppedError extends Error {
  override readonly name = 'LaneStoppedError';
}
