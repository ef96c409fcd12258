// What one utilisation run measured, step by step: the figures, the notes and the details are read off it.
import type { processStartBaseline } from '../../lib/baseline.js';
import type { MeasuredRun, WorkerMemory } from './bounded-run.js';
import type { LaneJobs, Makespan, SeedRun } from './lane-jobs.js';
import type { LoopPlan } from './plan.js';
import type { TimeBreakdown } from './where-time-goes.js';

/** `node -e 0` wall time and a step-like spawn's start, measured after the run with the bench idle. */
export type ProcessStartBaseline = Awaited<ReturnType<typeof processStartBaseline>>;

export interface UtilisationMeasures {
  readonly plan: LoopPlan;
  readonly measured: MeasuredRun;
  readonly memory: WorkerMemory;
  readonly jobs: LaneJobs;
  readonly makespan: Makespan;
  readonly breakdown: TimeBreakdown;
  readonly seed: SeedRun;
  /** In-process runs only (null for lane processes). */
  readonly baseline: ProcessStartBaseline | null;
}
