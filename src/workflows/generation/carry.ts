// What one run of the generation workflow hands the next (continue-as-new) and what a stopped
// loop returns to be resumed with. Adding a carried field: the interface and `firstCarry` below.
import type { FileRef } from '../../artifacts/file-ref.js';
import type { Candidate, PackageChampion } from '../../activities/types.js';
import type { LoopConfig } from '../../config/loop-config.js';
import type { CandidatePeaks } from '../../rules/gpu-needs.js';
import type { LaneUse, TrainingGpu } from './lane-use.js';
import { generationRow, initialLoopState, type LoopState } from '../../ledger/loop-state.js';
import type { GenerationRow, SplitRow } from '../../ledger/rows.js';
import type { LoopView, ReserveCheckBrief } from '../loop-view.js';
import { emptyRoundEnsembles, type RoundEnsembleState } from '../round-ensembles.js';
import type { RoundProgress } from '../round-progress.js';
import { emptyTeacherPlan, type TeacherPlan } from '../teacher-plan.js';
import type { InFlight, Job } from './jobs.js';

export interface GenerationCarry {
  readonly state: LoopState;
  /** The generation this run opens; null when it continues one mid-way. */
  readonly opening: GenerationRow | null;
  readonly split: string | null;
  readonly round: number;
  readonly queue: Job[];
  readonly inFlight: InFlight[];
  readonly candidates: Candidate[] | null;
  readonly candidatesError: string | null;
  readonly lanesDownUntil: Record<string, number>;
  /** Why each lane was last lost under a job (RunReport.laneLost), until a job on it reports again. */
  readonly lanesDownWhy: Record<string, string>;
  /** Lanes whose worker said it drains, and until when (epoch ms, workflow time): no new job goes there. */
  readonly lanesDraining: Record<string, number>;
  readonly stopping: boolean;
  /** Runs of each round not final yet: a round is finished when it and all before it are done. */
  readonly progress: RoundProgress;
  readonly teacher: TeacherPlan;
  /** Members of the teacher-member ensemble, set by a successful build until it is dispatched. */
  readonly teacherEnsemble: { config: string; checkpoint: string; files?: readonly FileRef[] }[] | null;
  readonly roundEnsembles: RoundEnsembleState;
  /** Teacher files students wait for, each reported once per generation. */
  readonly waitsReported: string[];
  /** New champions not yet handed to packaging (a stop at once leaves them for the resumption). */
  readonly unpackaged: PackageChampion[];
  /** Rounds whose runs all failed for one reason, and until when no new round is planned. */
  readonly failing: Failing | null;
  /** Per round with runs not final: the one reason all its final runs failed for so far, null once one did not. */
  readonly roundFailures: Readonly<Record<string, string | null>>;
  /** The split of this generation failed and is given up (its ledger row), until `resume`. */
  readonly splitFailed: SplitRow | null;
  /** Which start of the loop this is: 1, then one more for each `start --fresh` (children's ids carry it from 2 on). */
  readonly incarnation: number;
  /** The most each candidate's runs held of their GPU: what its next jobs are admitted by (rules/gpu-needs.ts). */
  readonly candidatePeaks: CandidatePeaks;
  /** The most each candidate's evaluations held of their GPU (an ensemble's under its run id): what its next evaluations are admitted by. */
  readonly evaluatePeaks: CandidatePeaks;
  /** How long each lane sat with no job of the loop (lane-use.ts). */
  readonly laneUse: Record<string, LaneUse>;
  /** The GPU time the loop's training used, this generation and in all (lane-use.ts). */
  readonly trainingGpu: TrainingGpu;
  /** Why the current generation opened (its generation row's reason), for `watch` and `status`. */
  readonly openedBy: string | null;
  /** When it opened (its generation row's `started`): an advance sent twice is told by it (reports.ts, validateAdvance). */
  readonly openedAt: string | null;
  /** Reserve checks the loop recorded, in all generations, and the newest: `watch` prints each. */
  readonly reserveChecksSeen: number;
  readonly lastReserveCheck: ReserveCheckBrief | null;
}

export interface Failing {
  readonly reason: string;
  readonly since: string;
  readonly rounds: number;
  /** Epoch milliseconds (workflow time); 0 once the pause is over or lifted. */
  readonly until: number;
}

export interface GenerationInput {
  readonly loopId: string;
  readonly config: LoopConfig;
  /** Absent on the loop's very first start. */
  readonly carry?: GenerationCarry;
  /** A first start after `start --fresh` (no carry): the loop's new incarnation (absent: 1). */
  readonly incarnation?: number;
  /** The random token of the `champion-loop start` that started this run (startUpdate); never carried on. */
  readonly startToken?: string;
}

/** What a generation workflow returns when the loop stops: its last state, and how to resume it. */
export interface GenerationResult {
  readonly view: LoopView;
  /** Start the loop again with this carry to go on where it stopped (`champion-loop start` does). */
  readonly resume: GenerationCarry;
}

/** What a generation starts with for rounds, its teacher and its ensembles. */
export function freshGenerationPlans(): Pick<
  GenerationCarry,
  'progress' | 'teacher' | 'teacherEnsemble' | 'roundEnsembles' | 'waitsReported'
> {
  return {
    progress: {},
    teacher: emptyTeacherPlan,
    teacherEnsemble: null,
    roundEnsembles: emptyRoundEnsembles,
    waitsReported: [],
  };
}

/** The carry of a loop's very first run; also the defaults of fields an older carry lacks. */
export function firstCarry(config: LoopConfig, started: string, incarnation = 1): GenerationCarry {
  return {
    state: initialLoopState(),
    opening: generationRow(initialLoopState(), 'initial', config.base_seed, started),
    split: null,
    round: 0,
    queue: [],
    inFlight: [],
    candidates: null,
    candidatesError: null,
    lanesDownUntil: {},
    lanesDownWhy: {},
    lanesDraining: {},
    stopping: false,
    ...freshGenerationPlans(),
    unpackaged: [],
    failing: null,
    roundFailures: {},
    splitFailed: null,
    incarnation,
    candidatePeaks: {},
    evaluatePeaks: {},
    laneUse: {},
    trainingGpu: { generation: 0, seconds: 0, loopSeconds: 0 },
    openedBy: null,
    openedAt: null,
    reserveChecksSeen: 0,
    lastReserveCheck: null,
  };
}

/** The carried fields' names, in one list taken from the first carry. */
export function carriedKeys(first: GenerationCarry): (keyof GenerationCarry)[] {
  return Object.keys(first) as (keyof GenerationCarry)[];
}
