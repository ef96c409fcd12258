import type { FileRef } from '../artifacts/file-ref.js';
import type { LadderSteps } from '../rules/ladder-rule.js';
import type { PairedJudgement } from '../rules/paired-fold.js';
import type { Counts, EvalRow, EvalSummary, HeldoutResult, Decided } from '../rules/types.js';

// The seed's ledger.jsonl rows, field for field: existing analysis scripts read these.
// Each kind, its fields and an example line: docs/ledger.md.

/** A generation opened (first start or advance). */
export interface GenerationRow {
  readonly type: 'generation';
  readonly event: 'start' | 'advance';
  readonly generation: number;
  readonly reason: string;
  readonly split_seed: number;
  readonly previous_champion: EvalSummary | null;
  readonly previous_pareto_set: EvalSummary[];
  readonly started: string;
}

/** How a training run ended. `ensemble` marks a synthetic ensemble run. */
export type RunStatus = 'trained' | 'no_eligible_checkpoint' | 'train_failed' | 'stale_run_dir' | 'ensemble';

/** One training run of one candidate in one round (or a synthetic ensemble run). */
export interface RunRow {
  readonly type: 'run';
  readonly generation: number;
  readonly round: number;
  readonly seed: number | null;
  readonly candidate: string;
  readonly run_id: string;
  readonly config_path: string;
  readonly config_sha256: string;
  readonly status: RunStatus;
  readonly train_rc: number | null;
  readonly started: string;
  readonly finished: string;
  readonly epochs_run: number | null;
  readonly checkpoints: string[];
  readonly error: string | null;
  readonly members?: readonly unknown[];
  /** Not a seed field, an ensemble only: members left out of its manifest because a file their evaluation needs was gone, and why (absent when none). */
  readonly members_left_out?: readonly { config: string; checkpoint: string; why: string }[];
  /** Not a seed field: how long its trainer ran on a GPU lane, in seconds (absent on CPU lanes and older rows). */
  readonly gpu_seconds?: number;
  /** Not a seed field: the most GPU memory its trainer's processes were seen holding at once, in MiB (absent when nvidia-smi listed none). */
  readonly gpu_peak_mib?: number;
  /** Not a seed field: what its GPU time cost at its lane's loop.yaml `usd_per_gpu_hour` (absent without a price or GPU time). */
  readonly gpu_usd?: number;
  /** Not a seed field: lanes lost under its training (worker killed, preempted, stopped at once) and the training sent again, apart from retries.train (absent when none). */
  readonly lost_lanes?: number;
  /** Not a seed field: times its trainer ran out of GPU memory and waited for room to run again, apart from retries.train (absent when none). */
  readonly oom_retries?: number;
  /** Not a seed field: when its first attempt started, when a lost lane or an out-of-memory made `started` a later one's (absent otherwise). */
  readonly first_started?: string;
  /** Not a seed field, with loop.yaml `artifacts:` only: its job config, split and checkpoints, in the store by content (docs/artifacts.md). */
  readonly files?: readonly FileRef[];
}

/** The champion changed. */
export interface ChampionRow {
  readonly type: 'champion';
  readonly generation: number;
  readonly previous: EvalSummary | null;
  readonly champion: EvalSummary;
  readonly finished: string;
  /** Under loop.yaml `champion_rule: ladder`: the champion's test counts as the Ladder records them (rounded). */
  readonly ladder?: { readonly margin: number; readonly steps: LadderSteps; readonly recorded: Counts };
  /** Under loop.yaml `champion_rule: paired`: the judgement that promoted it (McNemar statistics, or why unpaired). */
  readonly paired?: PairedJudgement;
}

/** The Pareto set changed. */
export interface ParetoSetRow {
  readonly type: 'pareto_set';
  readonly generation: number;
  readonly members: EvalSummary[];
  readonly finished: string;
}

/** The champion scored on the reserve set, and the hold-up verdict. */
export interface ReserveCheckRow {
  readonly type: 'reserve_check';
  readonly generation: number;
  readonly run_id: string;
  readonly candidate: string;
  readonly checkpoint_name: string;
  readonly epoch: number | null;
  readonly test_evals: number;
  readonly status: 'ok' | 'failed';
  readonly verdict: 'pass' | 'fail' | 'error';
  readonly test: HeldoutResult | null;
  readonly reserve: HeldoutResult | null;
  readonly test_decided: Decided | null;
  readonly reserve_decided: Decided | null;
  readonly compared: 'result' | 'decided';
  readonly eval_json: string;
  readonly finished: string;
  readonly f2p_z?: number;
  readonly f2p_p?: number;
  readonly p2f_z?: number;
  readonly p2f_p?: number;
  readonly stale_champion?: boolean;
}

/** A teacher build's outcome. */
export interface TeacherRow {
  readonly type: 'teacher';
  readonly generation: number;
  readonly status: 'ok' | 'failed';
  readonly path: string;
  readonly sha256?: string;
  readonly members: readonly { run_id: string; checkpoint_name: string }[];
  readonly started: string;
  readonly finished: string;
  /** Not a seed field, loop.yaml `artifacts:` only, a built teacher: its file in the store by content. */
  readonly files?: readonly FileRef[];
  /** Not a seed field, a failed build: why (absent in rows from before it). */
  readonly error?: string;
}

/** One step of packaging a champion. */
export interface PackageRow {
  readonly type: 'package';
  readonly event: 'launched' | 'finished' | 'dropped' | 'launch_failed';
  readonly generation: number;
  readonly run_id: string;
  readonly epoch: number | null;
  readonly checkpoint_name: string;
  readonly time: string;
  readonly command?: string[];
  readonly pid?: number;
  readonly log?: string;
  readonly exit_code?: number | null;
  readonly error?: string;
  /** On `finished`, with loop.yaml `artifacts:`: where the package is in the store (not a seed field). */
  readonly package_uri?: string;
}

/**
 * The generation's split failed and the loop gave it up: no training run starts in this generation
 * until an operator signals `resume`, the loop is stopped and started, or it advances. Not a seed
 * row (the seed stops with an error there).
 */
export interface SplitRow {
  readonly type: 'split';
  readonly event: 'failed';
  readonly generation: number;
  readonly split_seed: number;
  /** Why, as `status` says it: the command or limit, and what to do. */
  readonly error: string;
  readonly time: string;
}

/**
 * A GPU lane admitted a training job, and the job finished: the seed's `dispatch` row, written
 * for a training that ran on a lane that read its device (none on CPU lanes). `reserved` goes in
 * just before the job's run row, `finished` after its eval rows.
 */
export interface DispatchRow {
  readonly type: 'dispatch';
  /** This loop writes `reserved` and `finished`; a seed ledger may hold `failed`, `cancelled` and `launch_failed` too. */
  readonly event: 'reserved' | 'finished' | 'failed' | 'cancelled' | 'launch_failed';
  readonly generation: number;
  /** The run id; a reserve check's `reserve-<run>-<checkpoint>-n<test evals>` (the seed's). */
  readonly job: string;
  /** The seed's name of the job's kind (this loop writes Job, training runs, and ReserveJob, reserve checks). */
  readonly kind: 'Job' | 'TeacherJob' | 'EnsembleJob' | 'RoundEnsembleJob' | 'ReserveJob';
  /** Its place among the steps the lane's worker admitted since it started. */
  readonly slot: number;
  /** The lane's task queue. */
  readonly worker: string;
  readonly physical_device: number;
  /** The GPU memory the lane admitted it to grow to (its candidate's need, else the lane's `min_free_gib`). */
  readonly peak_usage: { readonly gpu_mib: number };
  /** What it keeps of the device once it ends: nothing, as its processes end with it. */
  readonly retained_usage: { readonly gpu_mib: number };
  /** `reserved`: when its trainer started; `finished`: when its last row (run or eval) was decided. */
  readonly time: string;
  /** On `finished`: null (the job reported; a failed training is its run row's status). */
  readonly error?: null;
  /** Not a seed field: the device's size as the lane read it, in MiB (absent from older lanes). */
  readonly device_total_mib?: number;
}

export type LedgerRow =
  | GenerationRow
  | RunRow
  | EvalRow
  | ChampionRow
  | ParetoSetRow
  | ReserveCheckRow
  | TeacherRow
  | PackageRow
  | SplitRow
  | DispatchRow;
