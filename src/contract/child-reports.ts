// What a job's child workflow reports to its generation (by signal, or as its result), and what
// the childOutcome activity reads back from a child it finds completed: shared by the workflows,
// that activity and the history reader.
import type { LaneAdmission, MemoryWaits } from '../activities/types.js';
import type { RunRow, TeacherRow } from '../ledger/rows.js';
import type { EvalRow } from '../rules/types.js';

/** A training run (or an evaluation-only retry of one) reports to its generation. */
export interface RunReport {
  readonly childId: string;
  readonly jobId: string;
  /** The run row, when this child trained it (or found its directory stale). */
  readonly run: RunRow | null;
  readonly evals: EvalRow[];
  /** What ranking ensembles later needs of a trained run's selected checkpoint. */
  readonly selected: {
    readonly checkpoint: string;
    readonly falseNegatives: number | null;
    readonly validationGateAuc: number | null;
  } | null;
  /** The lane did not start the work in time; the generation sends what is left to another lane. */
  readonly laneUnavailable: boolean;
  /**
   * With laneUnavailable: why the lane was last lost under the step before that (e.g. its worker
   * has no codec key and stopped), which `status` shows beside the lane. Absent: it was not lost.
   */
  readonly laneLost?: string;
  /** Checkpoints still to score when the lane was unavailable. */
  readonly unscored: string[];
  /** How a GPU lane admitted the training this child ran: the run's `dispatch` rows (report-fold.ts). */
  readonly admission?: LaneAdmission;
  /** The most its evaluators held of a GPU lane, in MiB: what its candidate's evaluations are admitted by next. */
  readonly evalPeakMiB?: number;
  /** Its steps' waits for GPU memory on their lane, [from, to] in epoch ms (absent: none, or an older child). */
  readonly memoryWaits?: MemoryWaits;
}

/** A reserve check reports the champion's reserve eval (null when its lane was unavailable). */
export interface ReserveReport {
  readonly childId: string;
  readonly jobId: string;
  readonly champion: EvalRow;
  readonly testEvals: number;
  readonly reserve: EvalRow | null;
  /** How a GPU lane admitted the reserve evaluator: the check's `dispatch` rows (report-fold.ts). */
  readonly admission?: LaneAdmission;
  /** The most the reserve evaluator held of a GPU lane, in MiB. */
  readonly peakMiB?: number;
  /** Its evaluator's waits for GPU memory on its lane (absent: none, or an older child). */
  readonly memoryWaits?: MemoryWaits;
}

/** A teacher build reports its outcome (the `teacher` ledger row; null when its lane was unavailable). */
export interface TeacherReport {
  readonly childId: string;
  readonly jobId: string;
  readonly row: TeacherRow | null;
  /** Its member evaluations' waits for GPU memory on its lane (absent: none, or an older child). */
  readonly memoryWaits?: MemoryWaits;
}
