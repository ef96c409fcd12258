// What every step of one job may use of its lane, decided once where the job is launched
// (workflows/generation/child-starts.ts), carried on the job's child input and on each of its
// lane activities' inputs, and opened by the lane's activity wrapper (activities/index.ts) into
// the scope its subprocesses run in (activities/support/subprocess.ts). No step carries a need
// of its own: a new lane capability is a field here.
import type { StepNeeds } from '../rules/gpu-needs.js';

/** How a lane tells and waits out a step's CUDA out-of-memory (loop.yaml `oom_marker`, `retries.oom`). */
interface OomRule {
  /** A stack's own line for an out-of-memory, besides PyTorch's, JAX's and CUDA's. */
  readonly marker?: string;
  /** Out-of-memory waits a step gets, apart from its attempts. */
  readonly retries: number;
}

export interface LaneJob {
  /** GPU memory each kind of step may grow to. */
  readonly needs: StepNeeds;
  readonly oom: OomRule;
}

/** loop.yaml `retries.oom` when it is not set. */
export const DEFAULT_OOM_RETRIES = 4;

/** The failure type of a lane step its lane stopped at once (SIGTERM, a preemption): sent again apart from its attempts. */
export const LANE_STOPPED = 'LaneStoppedError';
