import { runIdFor } from '../rules/ids.js';
import { trainingSeed } from '../rules/seeds.js';
import type { EvalRow } from '../rules/types.js';
import { recordRow, reserveCheckRow, type FoldSettings, type LoopState } from './loop-state.js';
import { isLaneAdmission } from '../workflows/report-shapes.js';
import { rowTime } from './ledger-lines.js';
import type { DispatchRow, LedgerRow, RunRow } from './rows.js';
import type { LaneAdmission } from '../activities/types.js';

// What a child's report adds to the ledger. The generation workflow's signal handlers and the
// ledger exporter both call these, so the live state and the exported ledger cannot drift apart.

/** Rows recorded so far and the champions that appeared, in order. */
export interface Folded {
  readonly state: LoopState;
  readonly rows: LedgerRow[];
  readonly newChampions: EvalRow[];
}

function fold(state: LoopState, rows: readonly LedgerRow[], settings: FoldSettings): Folded {
  const out: LedgerRow[] = [];
  const newChampions: EvalRow[] = [];
  for (const row of rows) {
    const recorded = recordRow(state, row, settings);
    state = recorded.state;
    out.push(...recorded.rows);
    if (recorded.newChampion) newChampions.push(recorded.newChampion);
  }
  return { state, rows: out, newChampions };
}

/**
 * A training run's report: its run row (when it has one), then its eval rows in order; a training
 * a GPU lane admitted has its dispatch rows around them.
 */
export function foldRunReport(
  state: LoopState,
  report: { readonly run: RunRow | null; readonly evals: readonly EvalRow[]; readonly admission?: unknown },
  settings: FoldSettings,
): Folded {
  const rows = [...(report.run ? [report.run] : []), ...report.evals];
  const dispatch = report.run ? dispatchRows(report.run, rows, report.admission) : null;
  return fold(state, dispatch ? [dispatch.reserved, ...rows, dispatch.finished] : rows, settings);
}

/** The dispatch rows of a run a GPU lane admitted (null without a well-formed admission: a CPU lane, an older report). */
function dispatchRows(
  run: RunRow,
  rows: readonly LedgerRow[],
  admission: unknown,
): { reserved: DispatchRow; finished: DispatchRow } | null {
  if (!isLaneAdmission(admission)) return null;
  return dispatchPair(
    { generation: run.generation, job: run.run_id, kind: 'Job' },
    admission,
    lastTime(rows, run.finished),
  );
}

/** The newest time among rows (a run's evals may finish after it), at least `from`. */
function lastTime(rows: readonly LedgerRow[], from: string): string {
  return rows.reduce((latest, decided) => {
    const time = rowTime(decided);
    return time > latest ? time : latest;
  }, from);
}

/** A job's `reserved` and `finished` dispatch rows: the seed's fields in the seed's order. */
function dispatchPair(
  job: Pick<DispatchRow, 'generation' | 'job' | 'kind'>,
  admission: LaneAdmission,
  finishedAt: string,
): { reserved: DispatchRow; finished: DispatchRow } {
  const row = (event: 'reserved' | 'finished', time: string): DispatchRow => ({
    type: 'dispatch',
    event,
    generation: job.generation,
    job: job.job,
    kind: job.kind,
    slot: admission.slot,
    worker: admission.worker,
    physical_device: admission.physical_device,
    peak_usage: { gpu_mib: admission.need_mib },
    retained_usage: { gpu_mib: 0 },
    time,
    ...(event === 'finished' ? { error: null } : {}),
    // Not a seed field, after the seed's: the card's size, the report's ceiling (absent from older lanes).
    ...(typeof admission.total_mib === 'number' && admission.total_mib > 0
      ? { device_total_mib: admission.total_mib }
      : {}),
  });
  return { reserved: row('reserved', admission.admitted), finished: row('finished', finishedAt) };
}

/**
 * A reserve check's report: the reserve eval row (unless this checkpoint was already scored on
 * reserve in this generation), then the reserve_check row judged against the current champion.
 */
export function foldReserveReport(
  state: LoopState,
  report: {
    readonly champion: EvalRow;
    readonly testEvals: number;
    readonly reserve: EvalRow;
    readonly admission?: unknown;
  },
  settings: FoldSettings,
): Folded {
  const { reserve, champion } = report;
  // On a GPU lane that read its device: the seed's dispatch rows around the check's rows.
  const dispatch = isLaneAdmission(report.admission)
    ? dispatchPair(
        {
          generation: champion.generation,
          job: `reserve-${champion.run_id}-${champion.checkpoint_name}-n${report.testEvals}`,
          kind: 'ReserveJob',
        },
        report.admission,
        reserve.finished,
      )
    : null;
  const known = state.reserveScored.includes(`${reserve.run_id}/${reserve.checkpoint_name}`);
  const first = fold(state, [...(dispatch ? [dispatch.reserved] : []), ...(known ? [] : [reserve])], settings);
  const check = fold(
    first.state,
    [reserveCheckRow(first.state, champion, report.testEvals, reserve, settings)],
    settings,
  );
  const last = dispatch
    ? fold(check.state, [{ ...dispatch.finished, time: lastTime(check.rows, reserve.finished) }], settings)
    : { state: check.state, rows: [] };
  return {
    state: last.state,
    rows: [...first.rows, ...check.rows, ...last.rows],
    newChampions: [...first.newChampions, ...check.newChampions],
  };
}

/** A user's advance request: the next generation opens before any new job. */
export function foldAdvance(state: LoopState, reason: string): LoopState {
  return { ...state, advanceReason: reason || 'requested' };
}

/** A job is given up after this many attempts of its child ended without a report. */
export const MAX_CHILD_ATTEMPTS = 3;

/** What the ledger knows of a run job whose child workflows all ended without a report. */
export interface GivenUpRun {
  readonly generation: number;
  readonly round: number;
  readonly seed: number | null;
  readonly candidate: string;
  readonly runId: string;
}

/** Whether a child that ended without a report was its job's last attempt: the job is given up. */
export function lastAttempt(attempt: number): boolean {
  return attempt >= MAX_CHILD_ATTEMPTS;
}

/** A run job as the given-up rule reads it (a job of the generation, or the input of its child). */
export interface RunJobFacts {
  readonly generation: number;
  readonly round: number;
  readonly candidate: { readonly name: string };
  /** Its run row when it was trained already (an evaluation-only retry, an ensemble). */
  readonly run: RunRow | null;
  readonly reportRun?: boolean;
}

/** The run a job leaves as a given-up row when its last attempt ends without a report; null for a job whose run row exists. */
export function untrainedRun(job: RunJobFacts): GivenUpRun | null {
  if (job.run !== null || job.reportRun === true) return null;
  return {
    generation: job.generation,
    round: job.round,
    seed: trainingSeed(job.round),
    candidate: job.candidate.name,
    runId: runIdFor(job.generation, job.round, job.candidate.name),
  };
}

/** The run row of a run given up after its last attempt (`childId`) ended without a report: `train_failed`, with why. */
export function givenUpRunRow(run: GivenUpRun, childId: string, why: string, time: string): RunRow {
  return {
    type: 'run',
    generation: run.generation,
    round: run.round,
    seed: run.seed,
    candidate: run.candidate,
    run_id: run.runId,
    config_path: '',
    config_sha256: '',
    status: 'train_failed',
    train_rc: null,
    started: time,
    finished: time,
    epochs_run: null,
    checkpoints: [],
    error: `given up after ${MAX_CHILD_ATTEMPTS} attempts that ended without a report; the last (${childId}): ${why}`,
  };
}
