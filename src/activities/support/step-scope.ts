// The scope steps run in: a lane's variables (CUDA_VISIBLE_DEVICES), kill grace, stop signal, its
// record of running steps and the job whose steps they are, so that several lanes share one process.
import { AsyncLocalStorage } from 'node:async_hooks';
import type { LaneJob } from '../../contract/lane-job.js';
import type { StepRegistry } from './step-types.js';

let subprocessEnv: Readonly<Record<string, string>> = {};

/** What the steps run inside `withStepScope` share: a lane's, so that several lanes can share one process. */
export interface StepScope {
  /** Variables their subprocesses get on top of setSubprocessEnv's, e.g. the lane's CUDA_VISIBLE_DEVICES. */
  readonly env: Readonly<Record<string, string>>;
  /** How long a step's group gets between SIGTERM and SIGKILL (a step's own `killGraceMs` wins). */
  readonly killGraceMs?: number;
  /** Aborted when the lane worker stops at once (SIGTERM): every step's group is stopped as on cancellation. */
  readonly stopping?: AbortSignal;
  /** Told of every step that starts and ends (by its mark), so the lane can attribute its device's memory. */
  readonly steps?: StepRegistry;
  /** The job whose steps run in this scope: what each may use of the lane (contract/lane-job.ts). */
  readonly job?: LaneJob;
  /** Where its steps note each wait for their lane's GPU memory, [from, to] in epoch ms (createLaneActivities reports them). */
  readonly memoryWaits?: [number, number][];
}

const scoped = new AsyncLocalStorage<StepScope>();

/** The scope the current step runs in (none outside a lane's activity). */
export function currentStepScope(): StepScope | undefined {
  return scoped.getStore();
}

/**
 * Sets variables every later step's subprocess in this process gets, e.g. a lane's
 * CUDA_VISIBLE_DEVICES. With several lanes in one process, use withStepScope instead.
 */
export function setSubprocessEnv(env: Readonly<Record<string, string>>): void {
  subprocessEnv = { ...env };
}

/** Runs `work` with its steps in `scope` (variables added to an enclosing scope's). */
export function withStepScope<T>(scope: StepScope, work: () => Promise<T>): Promise<T> {
  const outer = scoped.getStore();
  return scoped.run({ ...outer, ...scope, env: { ...outer?.env, ...scope.env } }, work);
}

/** The variables every step's subprocess gets: setSubprocessEnv's, then the current scope's. */
export function scopeEnv(): Readonly<Record<string, string>> {
  return { ...subprocessEnv, ...scoped.getStore()?.env };
}
