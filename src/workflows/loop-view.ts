import type { DecidedCounts, StateJson } from '../ledger/loop-state.js';
import type { ReservePower } from '../rules/reserve-power.js';
import type { TestBudgetView } from '../rules/test-reuse.js';
import type { StepKind } from './step-priority.js';

/** One job running on a lane. */
interface InFlightView extends QueuedView {
  readonly kind: 'run' | 'reserve' | 'teacher';
  readonly childId: string;
  readonly lane: string;
  readonly since: string;
}

/** A job waiting for a lane, as it stands in a lane's queue (step-priority.ts); its step and priority absent on older workers. */
interface QueuedView {
  readonly jobId: string;
  readonly step?: StepKind;
  /** Temporal's priority key it is started with: smaller runs first (its kind's, plus loop.yaml `priority`). */
  readonly priority?: number;
}

/** One reserve check as `watch` prints it: whose, its verdict with the p-values and the alpha it was judged at. */
export interface ReserveCheckBrief {
  readonly generation: number;
  readonly run_id: string;
  readonly checkpoint_name: string;
  readonly status: 'ok' | 'failed';
  readonly verdict: string;
  readonly stale: boolean;
  readonly f2p_p: number | null;
  readonly p2f_p: number | null;
  readonly alpha: number;
  /** Why the generation ends after it (null: it goes on). */
  readonly ends: string | null;
}

/** What the `state` query returns: the seed's state.json plus rounds, lanes and control flags. */
export interface LoopView extends StateJson {
  readonly loop_id: string;
  /** Why this generation opened: its generation row's reason (absent on older workers). */
  readonly opened_by?: string | null;
  /** Reserve checks recorded in all generations, and the newest (absent on older workers). */
  readonly reserve_checks_seen?: number;
  readonly last_reserve_check?: ReserveCheckBrief | null;
  /** loop.yaml band_decisions only: the counts the champion and front were decided on (absent on older workers). */
  readonly decided?: DecidedCounts;
  /** Where the loop keeps its state (ledger copy, splits, notify.json); absent on older workers. */
  readonly state_dir?: string;
  /** loop.yaml `artifacts:` url (never credentials): `status` then asks in-flight jobs whether they wait for the store. */
  readonly artifact_store?: string;
  readonly round: number;
  readonly stopping: boolean;
  readonly split_ready: boolean;
  readonly queued: number;
  /** The queued jobs in the order the loop sends them to lanes, at most 20 (absent on older workers). */
  readonly queued_jobs?: QueuedView[];
  readonly in_flight: InFlightView[];
  readonly lanes: {
    readonly queue: string;
    readonly slots: number;
    readonly busy: number;
    readonly down_until: string | null;
    /** Why the lane was last lost under a job (e.g. its worker has no codec key), until a job on it reports again (absent: none). */
    readonly lost_to?: string;
    /** Its worker said it drains: no new job goes to it until then (absent on older workers). */
    readonly draining_until?: string | null;
    /**
     * How long no job of this loop ran on it (it had none, or each waited for GPU memory), of the
     * time the loop has watched it (absent on older workers). A job's memory waits count once it reported.
     */
    readonly idle_seconds?: number;
    readonly watched_seconds?: number;
    /** Of `idle_seconds`, the time it had jobs of this loop that all waited for GPU memory (absent on older workers). */
    readonly memory_wait_seconds?: number;
  }[];
  /** GPU time of the loop's training runs (their rows' gpu_seconds): this generation's, and in all (absent on older workers). */
  readonly training_gpu_seconds?: { readonly generation: number; readonly loop: number };
  /** What that GPU time cost (run rows' gpu_usd, loop.yaml usd_per_gpu_hour): absent until a run with a price reported. */
  readonly training_gpu_usd?: { readonly generation: number; readonly loop: number };
  readonly candidates: string[];
  readonly candidates_error: string | null;
  readonly split_error: string | null;
  /** The split failed and the loop gave it up: it tries again only on `resume`, a stop and start, or an advance. Absent on older workers. */
  readonly split_given_up?: boolean;
  readonly idle: boolean;
  /**
   * Every run of the last `rounds` rounds failed for this one reason (since then): the loop plans
   * no new round until `paused_until` (1, 2, 4 ... 30 minutes), a run succeeds, the candidates
   * file changes or an operator signals `resume`. Absent on loops from before it existed.
   */
  readonly failing?: FailingView | null;
  /** What the last reserve check of this run could detect (80% power); null before one. */
  readonly last_reserve_power?: ReservePower | null;
  /** loop.yaml `test_budget` and what is left of it this generation: absent without one. */
  readonly test_budget?: TestBudgetView;
}

interface FailingView {
  readonly reason: string;
  readonly since: string;
  readonly rounds: number;
  readonly paused_until: string | null;
}
