import type { FileRef } from '../artifacts/file-ref.js';
import type { ItemErrors } from './item-errors.js';
import type { LadderDecision } from './ladder-rule.js';
import type { PairedJudgement } from './paired-fold.js';

/** The two error counts every comparison is made on. */
export interface Counts {
  readonly fail_to_pass_count: number;
  readonly pass_to_fail_count: number;
}

/** What the loop keeps of an evaluator report: counts and rates on one held-out role. */
export interface HeldoutResult extends Counts {
  readonly fail_count: number;
  readonly fail_to_pass_rate: number;
  readonly pass_correct_count: number;
  readonly pass_count: number;
  readonly pass_to_fail_rate: number;
  readonly macro_f1: number;
  readonly s_f1: number;
}

/** Counts after the reject band: items inside the band are neither passed nor failed. */
export interface Decided extends Counts {
  readonly fail_count: number;
  readonly pass_count: number;
  readonly fail_to_pass_rate?: number;
  readonly pass_to_fail_rate?: number;
  readonly pass_correct_count?: number;
  readonly rejected_total?: number;
  readonly [key: string]: unknown;
}

/** Which block of an eval row champions are compared on. */
export type CompareKey = 'result' | 'decided';

/** The `eval` ledger row, one scored checkpoint on one role (docs/behaviour.md, section 9). */
export interface EvalRow {
  readonly type: 'eval';
  readonly generation: number;
  readonly role: Role;
  readonly run_id: string;
  readonly candidate: string;
  readonly round: number;
  readonly checkpoint: string;
  readonly checkpoint_name: string;
  readonly checkpoint_sha256: string | null;
  readonly epoch: number | null;
  readonly config_path: string;
  readonly status: 'ok' | 'failed';
  readonly validation: Record<string, unknown> | null;
  readonly result: HeldoutResult | null;
  readonly gate_auc: number | null;
  readonly gate_curve: unknown;
  readonly reject_band: unknown;
  readonly decided: Decided | null;
  readonly eval_json: string;
  readonly finished: string;
  readonly manifest?: string;
  readonly members?: readonly unknown[];
  /** Under loop.yaml `champion_rule` other than dominance: the decision this test eval was judged by. */
  readonly champion_rule?: LadderDecision | PairedJudgement;
  /** Under loop.yaml `champion_rule: paired`, test evals only: which test items it got wrong. */
  readonly item_errors?: ItemErrors;
  /** Under loop.yaml `test_budget`, test evals only: read after the generation's budget was spent, so judged by no rule. */
  readonly test_budget?: 'spent';
  /**
   * Not a seed field, with loop.yaml `artifacts:` only: what another host needs to use this
   * checkpoint (it, its job config and split, its report and scores), in the store by content.
   */
  readonly files?: readonly FileRef[];
  /**
   * Not a seed field, status `failed`: why there is no usable report (the evaluator's end, and
   * after an out-of-memory not run again, why), and its log; absent in rows from before it.
   */
  readonly error?: string;
}

export type Role = 'development' | 'validation' | 'test' | 'reserve';

/** The fields of an eval row that state.json and event rows carry (docs/behaviour.md, section 9). */
export const SUMMARY_KEYS = [
  'run_id',
  'candidate',
  'epoch',
  'checkpoint_name',
  'checkpoint',
  'config_path',
  'eval_json',
  'result',
] as const;

export type EvalSummary = Pick<EvalRow, (typeof SUMMARY_KEYS)[number]>;

/** A block champions are compared on (`result` or `decided`); only `decided` has rejections. */
export type Compared = Counts & { readonly rejected_total?: number | null };

/** A row that can be compared on either block; a block is null when the report lacked it. */
export interface Comparable {
  readonly result?: Compared | null;
  readonly decided?: Compared | null;
}

/** Counts with their denominators: what the reserve verdict tests rates on. */
export interface RateCounts extends Counts {
  readonly fail_count: number;
  readonly pass_count: number;
}

/** The evaluator's report JSON (subprocess contract); keys added later may be absent. */
export interface EvaluatorReport {
  readonly pass_count: number;
  readonly pass_correct_count: number;
  readonly fail_count: number;
  readonly fail_to_pass_count: number;
  readonly macro_f1: number;
  readonly s_f1: number;
  readonly checkpoint_sha256: string;
  readonly gate_auc?: number | null;
  readonly gate_curve?: unknown;
  readonly reject_band?: unknown;
  readonly decided?: Decided | null;
  readonly [key: string]: unknown;
}

/** The statistics and outcome a `reserve_check` row keeps. */
export interface ReserveVerdict {
  readonly f2p_z: number;
  readonly f2p_p: number;
  readonly p2f_z: number;
  readonly p2f_p: number;
  readonly verdict: 'pass' | 'fail';
}
