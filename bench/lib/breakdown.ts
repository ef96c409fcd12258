// Where the time goes between a job's end and the next job's start on its lane, stage by stage,
// from the step trace (process start and end) and the histories (when Temporal saw each step).
// Pure: the histories come in as timelines.
import type { ChildTimeline, GenerationTimeline } from './history.js';
import type { Dispatch } from './slots.js';
import type { TracedJob } from './trace.js';

/** Stages of a dispatch, in order; their sum is the dispatch gap. */
export const DISPATCH_STAGES = [
  [
    'evaluator exit -> evaluateRun completed',
    'the lane worker sees the exit, reads the reports, completes the activity',
  ],
  ['-> report sent', "the run's workflow task after its last activity: it completes (an adopted run signals)"],
  ['-> report in generation history', "the child's completion (or signal) recorded in the generation"],
  ['-> next child initiated', "the generation's workflow task: fold the report, pick the next job and lane"],
  ['-> next child started', 'the service starts the child workflow'],
  ['-> its first workflow task started', "schedule-to-start of the new child's first workflow task"],
  [
    '-> trainRun scheduled',
    "the new child's first workflow task, which writes the job config (prepareRun, a local activity)",
  ],
  ['-> trainRun started', "schedule-to-start on the lane's task queue"],
  ['-> train log header written', 'the activity: owner marker, run directory check, program lookup, log header'],
  ['-> trainer process start', 'the spawn: the trainer process begins (exec and runtime start-up)'],
] as const;

/** Stages between a job's train end and its evaluate start on the same lane. */
export const STEP_STAGES = [
  ['trainer exit -> trainRun completed', 'the lane worker collects checkpoints and completes the activity'],
  ['-> evaluateRun scheduled', "the run's workflow task after training"],
  ['-> evaluateRun started', "schedule-to-start on the lane's task queue"],
  ['-> eval log header written', 'the activity: band scores lookup, finished reports check, jobs file, log header'],
  ['-> evaluator process start', 'the spawn: the evaluator process begins (exec and runtime start-up)'],
] as const;

export type StageSamples = Map<string, number[]>;

/** When the activity wrote a step's log header (just before it spawns the step's program), epoch ms. */
export interface LogHeaders {
  readonly train: number | null;
  readonly evaluate: number | null;
}

function push(samples: StageSamples, name: string, value: number): void {
  const list = samples.get(name) ?? [];
  list.push(value);
  samples.set(name, list);
}

/** Consecutive differences of the marks, or null when one is missing. */
function stages(marks: readonly (number | null | undefined)[]): number[] | null {
  if (marks.some((mark) => mark === null || mark === undefined || Number.isNaN(mark))) return null;
  const values = marks as number[];
  return values.slice(1).map((mark, index) => mark - (values[index] as number));
}

/**
 * Dispatch stage samples of run-to-run dispatches; a dispatch to or from a round ensemble (no
 * training) or whose histories lack a mark is counted in `missing`.
 */
export function dispatchBreakdown(
  dispatches: readonly Dispatch[],
  jobs: readonly TracedJob[],
  childOf: (job: TracedJob) => ChildTimeline | undefined,
  childIdOf: (job: TracedJob) => string,
  generation: GenerationTimeline,
  headersOf: (job: TracedJob) => LogHeaders | undefined,
): { samples: StageSamples; missing: number } {
  const samples: StageSamples = new Map();
  let missing = 0;
  for (const dispatch of dispatches) {
    const previous = jobs[dispatch.previous] as TracedJob;
    const next = jobs[dispatch.next] as TracedJob;
    const a = childOf(previous);
    const b = childOf(next);
    const marks = [
      previous.evaluate.end,
      a?.activities.get('evaluateRun')?.completed,
      a?.reportSent,
      generation.reported.get(childIdOf(previous)),
      generation.initiated.get(childIdOf(next)),
      b?.started,
      b?.firstTaskStarted,
      b?.activities.get('trainRun')?.scheduled,
      b?.activities.get('trainRun')?.started,
      headersOf(next)?.train,
      next.train?.start,
    ];
    const values = stages(marks);
    if (values === null) {
      missing += 1;
      continue;
    }
    values.forEach((value, index) => push(samples, (DISPATCH_STAGES[index] as readonly [string, string])[0], value));
  }
  return { samples, missing };
}

/** Train-to-evaluate stage samples of every job. */
export function stepBreakdown(
  jobs: readonly TracedJob[],
  childOf: (job: TracedJob) => ChildTimeline | undefined,
  headersOf: (job: TracedJob) => LogHeaders | undefined,
): { samples: StageSamples; missing: number } {
  const samples: StageSamples = new Map();
  let missing = 0;
  for (const job of jobs) {
    if (job.train === null) continue;
    const child = childOf(job);
    const marks = [
      job.train.end,
      child?.activities.get('trainRun')?.completed,
      child?.activities.get('evaluateRun')?.scheduled,
      child?.activities.get('evaluateRun')?.started,
      headersOf(job)?.evaluate,
      job.evaluate.start,
    ];
    const values = stages(marks);
    if (values === null) {
      missing += 1;
      continue;
    }
    values.forEach((value, index) => push(samples, (STEP_STAGES[index] as readonly [string, string])[0], value));
  }
  return { samples, missing };
}
