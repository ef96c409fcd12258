// The trace read back as jobs on lanes, and what the schedule made of them: the dispatch gaps,
// the makespan against its bounds, and the Python loop's polling policy (lib/seed-policy.ts)
// simulated on the same jobs.
import type { LaneSpec } from '../../lib/loop-folder.js';
import { grahamBound, idealMakespan, listScheduleMakespan } from '../../lib/makespan.js';
import { simulateSeedLoop, SEED_DEFAULTS } from '../../lib/seed-policy.js';
import { dispatchGaps, type Dispatch } from '../../lib/slots.js';
import { summarize, type Summary } from '../../lib/stats.js';
import { parseTrace, tracedJobs, type TracedJob } from '../../lib/trace.js';
import { readTraces } from './bounded-run.js';
import type { LoopPlan } from './plan.js';

/** The jobs the lanes ran and the dispatches between them. */
export interface LaneJobs {
  readonly traced: TracedJob[];
  readonly dispatches: Dispatch[];
  /** Round ensembles the loop added among the jobs. */
  readonly ensembles: number;
  /** Dispatch gaps and a run's train end to its evaluate start on its lane, ms. */
  readonly dispatchMs: Summary;
  readonly trainToEvaluateMs: Summary;
}

export interface Makespan {
  /** Each job's process time, in job order. */
  readonly work: number[];
  readonly totalWork: number;
  /** First job start, epoch ms; the makespan runs from there to the last job's end. */
  readonly first: number;
  readonly makespan: number;
  readonly ideal: number;
  readonly listed: number;
  readonly graham: number;
  readonly idlePerJob: number;
  readonly meanWork: number;
}

export interface SeedRun {
  readonly dispatchMs: Summary;
  readonly makespan: number;
}

/** The traces as jobs; a lane process's trace names its lane (its steps see no CUDA_VISIBLE_DEVICES). */
export async function readLaneJobs(plan: LoopPlan): Promise<LaneJobs> {
  const texts = await readTraces(plan);
  const steps = texts.flatMap((text, index) =>
    parseTrace(text, plan.placement === null ? undefined : String((plan.lanes[index] as LaneSpec).device)),
  );
  const traced = tracedJobs(steps);
  const slotsOf = new Map(plan.lanes.map((lane) => [String(lane.device), lane.slots]));
  const dispatches = dispatchGaps(traced, (lane) => slotsOf.get(lane) ?? 1);
  const stepGaps = traced.flatMap((job) => (job.train === null ? [] : [job.evaluate.start - job.train.end]));
  return {
    traced,
    dispatches,
    ensembles: traced.filter((job) => job.kind === 'ensemble').length,
    dispatchMs: summarize(dispatches.map((d) => d.gap)),
    trainToEvaluateMs: summarize(stepGaps),
  };
}

/** The makespan of the jobs on `lanes` slots, its bounds and the idle lane time it leaves. */
export function makespanOf(traced: readonly TracedJob[], lanes: number): Makespan {
  const work = traced.map((job) => job.work);
  const totalWork = work.reduce((sum, value) => sum + value, 0);
  const first = Math.min(...traced.map((job) => job.start));
  const makespan = Math.max(...traced.map((job) => job.end)) - first;
  return {
    work,
    totalWork,
    first,
    makespan,
    ideal: idealMakespan(work, lanes),
    listed: listScheduleMakespan(work, lanes),
    graham: grahamBound(work, lanes),
    idlePerJob: (lanes * makespan - totalWork) / traced.length,
    meanWork: totalWork / traced.length,
  };
}

/** The Python loop's policy on the same jobs (same order, same work, same slots). */
export function seedPolicyRun(work: readonly number[], lanes: number): SeedRun {
  const seed = simulateSeedLoop(work, lanes, SEED_DEFAULTS);
  return { dispatchMs: summarize(dispatchGaps(seed.jobs).map((d) => d.gap)), makespan: seed.makespan };
}
