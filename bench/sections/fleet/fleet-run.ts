// What the fleet section measures of one generation, the settings its steps share, and how a
// run is printed in log lines and figure notes.
import type { WorkflowTaskStats } from '../../lib/fleet-math.js';
import type { Summary } from '../../lib/stats.js';

/** The ceiling search stops at the first step whose dispatch p99 passes this. */
export const P99_LIMIT_MS = 1000;

/** A history shard's transfer-queue reader: reads a second at most (Temporal's default 20). */
export const TRANSFER_READS_KEY = 'history.transferProcessorMaxPollRPS';
/** How often the comparison run's server may read it (temporal-dev.yaml keeps Temporal's 20). */
export const FAST_TRANSFER_READS = 1000;

/** What to measure: one generation of `rounds` x `size` jobs training `jobMs`, stopped after `budgetS`. */
export interface FleetRunSpec {
  readonly name: string;
  readonly size: number;
  readonly jobMs: readonly [number, number];
  readonly rounds: number;
  readonly budgetS: number;
}

/** One measured generation: a size, or a step of the ceiling search. */
export interface FleetRun {
  readonly name: string;
  readonly lanes: number;
  readonly jobMs: readonly [number, number];
  readonly rounds: number;
  readonly complete: boolean;
  readonly jobs: number;
  readonly dispatch: Summary;
  /** Dispatches (job starts) per second over the steady window. */
  readonly ratePerS: number;
  readonly busy: number;
  readonly windowS: number;
  readonly workflowTasks: WorkflowTaskStats;
  /** CPU ms per dispatch (all jobs of the run, first ones included) of the orchestrator process and of the dev server. */
  readonly orchestratorCpuMsPerDispatch: number;
  readonly serverCpuMsPerDispatch: number;
  /** Cores the orchestrator and the server used over the run (CPU seconds / wall seconds). */
  readonly orchestratorCores: number;
  readonly serverCores: number;
  /** Share of the whole box's CPU that was busy over the run (all processes, other sessions' too). */
  readonly boxBusy: number | null;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly calibrationMs: number;
  readonly wallS: number;
}

export const loads = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ');
export const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');

/** The box a run had: load average before and after, the calibration workload, the box's busy CPU share. */
export const machine = (run: FleetRun) =>
  `load ${loads(run.loadBefore)} -> ${loads(run.loadAfter)}, calibration ${run.calibrationMs.toFixed(0)} ms, box CPU ${run.boxBusy === null ? 'n/a' : `${(100 * run.boxBusy).toFixed(0)}%`} busy`;
