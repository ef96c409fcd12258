import { hostname } from 'node:os';
import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { createLaneActivities } from '../activities/index.js';
import * as probe from '../activities/probe-lane.js';
import { laneQueue } from '../config/lanes.js';
import { readGpuMemory, type GpuReading } from './gpu-memory.js';
import { memoryGuardSlots } from './memory-guard.js';
import { DEFAULT_MIN_FREE_PIDS, readPidsLimit, type PidsReading } from './pids-limit.js';

export interface LaneWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  /** The host part of the lane's task queue name (default: this machine's host name). */
  readonly host?: string;
  readonly device: number;
  readonly slots: number;
  readonly minFreeGiB: number;
  /** Tasks the cgroup's pids limit must still allow before the lane takes a job (default 512; 0: no pids guard). */
  readonly minFreePids?: number;
  /** A CPU lane (a box without GPUs, the demo): no memory guard, and no GPU visible to its jobs. */
  readonly cpu?: boolean;
  /** How the memory guard reads the device (tests pass a fake nvidia-smi). */
  readonly readGpu?: () => Promise<GpuReading>;
  /** How the pids guard reads the cgroup (tests pass fake cgroup files). */
  readonly readPids?: () => Promise<PidsReading>;
  readonly log?: (message: string) => void;
}

/**
 * A GPU lane: polls its device's own task queue, runs training and evaluation subprocesses with
 * CUDA_VISIBLE_DEVICES pinned to that device, and takes work only while the device has room
 * (free memory less what its running jobs hold) and the cgroup's pids limit leaves headroom.
 */
export async function createLaneWorker(options: LaneWorkerOptions): Promise<{ worker: Worker; queue: string }> {
  const queue = laneQueue(options.host ?? hostname(), options.device);
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: queue,
    activities: {
      ...createLaneActivities({ CUDA_VISIBLE_DEVICES: options.cpu ? '' : String(options.device) }),
      ...probe,
    },
    // A cancellation (stop --now) reaches a running step with the next heartbeat the worker sends:
    // steps beat every 5 s, and throttled by default the step could run on up to a minute after the stop.
    maxHeartbeatThrottleInterval: '5 seconds',
    defaultHeartbeatThrottleInterval: '5 seconds',
    tuner: {
      workflowTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
      localActivityTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
      nexusTaskSlotSupplier: { type: 'fixed-size', numSlots: 1 },
      activityTaskSlotSupplier: memoryGuardSlots({
        slots: options.slots,
        minFreeGiB: options.minFreeGiB,
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
      }),
    },
  });
  return { worker, queue };
}
