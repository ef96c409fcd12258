// The jobs a generation dispatches to its lanes, each as a child workflow.
import type { Candidate, TeacherMember } from '../../activities/types.js';
import type { LoopState } from '../../ledger/loop-state.js';
import type { RunRow } from '../../ledger/rows.js';
import { runIdFor } from '../../rules/ids.js';
import type { EvalRow } from '../../rules/types.js';
import type { RunReport } from '../messages.js';
import type { StepKind } from '../step-priority.js';

/**
 * A training run to dispatch: new, or trained already with evaluations left (a retry elsewhere),
 * or a synthetic ensemble run (its run row made here, only evaluations to do).
 */
export interface RunJob {
  readonly kind: 'run';
  readonly jobId: string;
  readonly generation: number;
  readonly round: number;
  readonly candidate: Candidate;
  readonly attempt: number;
  readonly run: RunRow | null;
  readonly unscored: string[] | null;
  readonly preferredLane: string | null;
  /** An ensemble's run row is new to the ledger: the child reports it with its evals. */
  readonly reportRun?: boolean;
  /** What training selected, kept for an evaluation-only retry (whose report cannot know it) for the round ensembles. */
  readonly selected?: RunReport['selected'];
}

/** The generation's teacher build. */
export interface TeacherJob {
  readonly kind: 'teacher';
  readonly jobId: string;
  readonly generation: number;
  readonly members: TeacherMember[];
  readonly attempt: number;
}

/** The champion scored on reserve, as it was when the check became due. */
export interface ReserveJob {
  readonly kind: 'reserve';
  readonly jobId: string;
  readonly generation: number;
  readonly champion: EvalRow;
  readonly testEvals: number;
  readonly attempt: number;
}

export type Job = RunJob | ReserveJob | TeacherJob;

/** A job running on a lane as a child workflow. */
export interface InFlight {
  readonly job: Job;
  readonly lane: string;
  readonly childId: string;
  readonly since: string;
  /** Started with `reportBy: 'completion'` (patch reports-by-completion): a later run adopts it. */
  readonly byCompletion?: boolean;
}

/** A candidate's run of a round: trained with the round's seed, then its checkpoints scored. */
export function newRunJob(generation: number, round: number, candidate: Candidate): RunJob {
  return {
    kind: 'run',
    jobId: runIdFor(generation, round, candidate.name),
    generation,
    round,
    candidate,
    attempt: 1,
    run: null,
    unscored: null,
    preferredLane: null,
  };
}

/** An ensemble's synthetic run, ready to be scored on the test role like a checkpoint. */
export function ensembleJob(run: RunRow): RunJob {
  return {
    kind: 'run',
    jobId: run.run_id,
    generation: run.generation,
    round: run.round,
    candidate: { name: run.run_id, base_config: '', overrides: {} },
    attempt: 1,
    run,
    unscored: [...run.checkpoints],
    preferredLane: null,
    reportRun: true,
  };
}

/** The reserve check of the champion as it is now. */
export function reserveJob(state: LoopState, champion: EvalRow): ReserveJob {
  return {
    kind: 'reserve',
    jobId: `reserve-${champion.run_id}-${champion.checkpoint_name}-n${state.testEvals}`,
    generation: state.generation,
    champion,
    testEvals: state.testEvals,
    attempt: 1,
  };
}

/** The same job, once more. */
export function nextAttempt<J extends Job>(job: J): J {
  return { ...job, attempt: job.attempt + 1 };
}

/** Which kind of lane step a job is (its place in the lane's queue, step-priority.ts): an evaluation-only retry is an evaluation. */
export function jobStep(job: Job): StepKind {
  if (job.kind === 'reserve') return 'reserve';
  if (job.kind === 'teacher') return 'teacher';
  return job.run === null && job.reportRun !== true ? 'training' : 'evaluation';
}
