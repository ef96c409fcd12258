import type { PackageOutcome, PackageChampion } from '../../activities/types.js';
import type { GenerationInput } from '../../workflows/generation.js';
import type { ReserveReport, RunReport, TeacherReport } from '../../contract/child-reports.js';
import type { PackagingInput } from '../../contract/packaging.js';
import {
  foldSettingsOf,
  generationRow,
  initialLoopState,
  recordRow,
  type FoldSettings,
  type LoopState,
} from '../loop-state.js';
import { finishPackage, requestPackage, stopPackagingAtOnce, type PackagingState } from '../packaging-fold.js';
import {
  foldAdvance,
  foldReserveReport,
  foldRunReport,
  givenUpRunRow,
  lastAttempt,
  untrainedRun,
  type GivenUpRun,
} from '../report-fold.js';
import type { LedgerRow, PackageRow, SplitRow } from '../rows.js';
import { definedFields } from '../../support/defined-fields.js';

// The ledger rebuilt from Temporal history alone: the same folds the workflows run, applied to
// the events their histories hold (inputs, children started and lost, signals, activity results).

/** What of one generation-workflow run's history the ledger depends on, in history order. */
export type GenerationEvent =
  /** `run` and `attempt`: a training run child that trains (its job had no run row yet). */
  | {
      readonly kind: 'child-started';
      readonly workflowId: string;
      readonly run?: GivenUpRun;
      readonly attempt?: number;
    }
  /**
   * `why` it ended without a report, `time` the workflow's clock when it learned of it, and
   * `givenUpRows`: handled by code that records a run it gives up on (patch GIVEN_UP_RUN_ROWS).
   */
  | {
      readonly kind: 'child-lost';
      readonly workflowId: string;
      readonly why?: string;
      readonly time?: string;
      readonly givenUpRows?: boolean;
    }
  | { readonly kind: 'run-reported'; readonly report: RunReport }
  | { readonly kind: 'reserve-reported'; readonly report: ReserveReport }
  | { readonly kind: 'teacher-reported'; readonly report: TeacherReport }
  | { readonly kind: 'advance'; readonly reason: string }
  /** The generation's split failed and was given up: the row the workflow wrote into its memo. */
  | { readonly kind: 'split-failed'; readonly row: SplitRow };

export interface GenerationRunHistory {
  readonly input: GenerationInput;
  /** When the run's first workflow task started: the workflow's own clock at its first step. */
  readonly firstTaskTime: string;
  readonly events: readonly GenerationEvent[];
  /** `object`: the run was recorded before patch champion-identity, and folds as its code did (loop-state.ts). */
  readonly championIdentity?: 'object';
}

/** One run of the generation workflow: the rows its history holds, from the state it started with. */
export function foldGenerationRun(run: GenerationRunHistory): { rows: LedgerRow[]; state: LoopState } {
  const { config, carry } = run.input;
  let state = carry ? carry.state : initialLoopState();
  const rows: LedgerRow[] = [];
  const inFlight = new Set<string>();
  const settings: FoldSettings = {
    ...foldSettingsOf(config),
    ...(run.championIdentity ? { championIdentity: run.championIdentity } : {}),
  };
  const opening = carry
    ? carry.opening
    : generationRow(initialLoopState(), 'initial', config.base_seed, run.firstTaskTime);
  // Training children that train, and their attempt: one given up on ends as a run row.
  const untrained = new Map<string, { run: GivenUpRun; attempt: number }>();
  if (carry) for (const flight of carry.inFlight) inFlight.add(flight.childId);
  for (const { job, childId } of carry?.inFlight ?? []) {
    const run = job.kind === 'run' ? untrainedRun(job) : null;
    if (run) untrained.set(childId, { run, attempt: job.attempt });
  }
  if (opening) {
    const recorded = recordRow(state, opening, settings);
    state = recorded.state;
    rows.push(...recorded.rows);
  }
  for (const event of run.events) {
    switch (event.kind) {
      case 'child-started':
        inFlight.add(event.workflowId);
        if (event.run && event.attempt !== undefined)
          untrained.set(event.workflowId, { run: event.run, attempt: event.attempt });
        break;
      case 'child-lost': {
        const given = untrained.get(event.workflowId);
        if (!inFlight.delete(event.workflowId) || !event.givenUpRows || !given || !lastAttempt(given.attempt)) break;
        const folded = foldRunReport(
          state,
          { run: givenUpRunRow(given.run, event.workflowId, event.why ?? '', event.time ?? ''), evals: [] },
          settings,
        );
        state = folded.state;
        rows.push(...folded.rows);
        break;
      }
      case 'run-reported': {
        if (!inFlight.delete(event.report.childId)) break;
        const folded = foldRunReport(state, event.report, settings);
        state = folded.state;
        rows.push(...folded.rows);
        break;
      }
      case 'reserve-reported': {
        if (!inFlight.delete(event.report.childId) || event.report.reserve === null) break;
        const folded = foldReserveReport(state, { ...event.report, reserve: event.report.reserve }, settings);
        state = folded.state;
        rows.push(...folded.rows);
        break;
      }
      case 'teacher-reported': {
        if (!inFlight.delete(event.report.childId) || event.report.row === null) break;
        const recorded = recordRow(state, event.report.row, settings);
        state = recorded.state;
        rows.push(...recorded.rows);
        break;
      }
      case 'advance':
        state = foldAdvance(state, event.reason);
        break;
      case 'split-failed':
        rows.push(event.row);
        break;
    }
  }
  return { rows, state };
}

/** What of one packaging-workflow run's history the ledger depends on, in history order. */
export type PackagingEvent =
  | { readonly kind: 'champion'; readonly champion: PackageChampion }
  | { readonly kind: 'package-finished'; readonly outcome: PackageOutcome }
  /** The `stopNow` signal: the workflow ends, its running and queued champions unpackaged. */
  | { readonly kind: 'stopped-at-once'; readonly time: string };

export interface PackagingRunHistory {
  readonly input: PackagingInput;
  readonly events: readonly PackagingEvent[];
  /** false: the run was recorded before patch packaged-once, and folds as its code did (packaging-fold.ts). */
  readonly packagedOnce?: false;
}

/** One run of the packaging workflow, from the state it carries (or, on its first run, `previous`). */
export function foldPackagingRun(
  run: PackagingRunHistory,
  previous: PackagingState,
): { rows: PackageRow[]; state: PackagingState } {
  // What was packaged travels only in a carry: a new execution of the workflow starts without it.
  // Drops held while a command ran go on being held (packaging-fold.ts): they go in with its rows.
  let state = run.input.carry ?? {
    running: previous.running,
    queued: previous.queued,
    ...definedFields({ dropped: previous.dropped }),
  };
  const once = run.packagedOnce ?? true;
  const rows: PackageRow[] = [];
  for (const event of run.events) {
    const step =
      event.kind === 'champion'
        ? requestPackage(state, event.champion, once)
        : event.kind === 'stopped-at-once'
          ? stopPackagingAtOnce(state, event.time)
          : finishPackage(state, event.outcome, once);
    state = step.state;
    rows.push(...step.rows);
    // The run ends at its stop: nothing delivered after it runs, as in the workflow.
    if (event.kind === 'stopped-at-once') break;
  }
  return { rows, state };
}
