// The catalogue of steps: every activity the loop's workers register, once, with where it runs,
// its limits and retries, the loop.yaml commands it runs, its log files and how it reads in the
// Web UI's history. The workers' activity maps (registered.ts checks them), the activity summaries,
// the activity options workflows schedule with (workflows/step-options.ts) and the log paths
// (activities/support/paths.ts) are built from it: a new step is one entry here, and the compiler
// then asks for it where a worker's activities are made. Workflow-safe: no Node built-ins, no activities.
import type { LoopConfig } from '../config/loop-config.js';
import { COMMAND_NOT_FOUND, CONTRACT_ERROR } from './failures.js';
import { checkpointOf, count, type StepInput } from './step-input.js';

/** The workers that register activities, each polling its own kind of task queue. */
export type StepWorker = 'orchestrator' | 'lane' | 'package';

/** The kinds of lane step, each with its place in its lane's queue (workflows/step-priority.ts). */
export type StepKind = 'reserve' | 'evaluation' | 'teacher' | 'training';

/** A loop.yaml `timeouts.<key>` a step's limit is read from. */
type TimeoutKey = keyof LoopConfig['timeouts'];

/** A loop.yaml `retries.<key>` a step's attempts are read from (`lost_lane` and `oom` count other things). */
type RetriesKey = Exclude<keyof LoopConfig['retries'], 'lost_lane' | 'oom'>;

/** A limit: a duration written here, or the loop.yaml `timeouts.<key>` that sets it. */
export type StepLimit = string | { readonly timeouts: TimeoutKey };

/** How long a step may take, how often it heartbeats, and how it is tried again. */
interface StepLimits {
  readonly startToClose: StepLimit;
  readonly heartbeat?: StepLimit;
  readonly scheduleToStart?: StepLimit;
  /** A number written here, or loop.yaml `retries.<key>`; absent: tried with `backoff` until its caller's schedule-to-close limit. */
  readonly attempts?: number | { readonly retries: RetriesKey };
  /** Failures no attempt repeats (Temporal's non-retryable error types). */
  readonly final?: readonly string[];
  readonly backoff?: {
    readonly initialInterval: string;
    readonly backoffCoefficient: number;
    readonly maximumInterval: string;
  };
}

export interface Step {
  /**
   * Where workflows schedule it: the orchestrator's queue, its job's lane, the package queue;
   * `probed`: the queue its caller probes, on any worker in `workers`.
   */
  readonly queue: StepWorker | 'probed';
  /** The workers that register it, when not only its queue's. */
  readonly workers?: readonly StepWorker[];
  /** Run as a local activity, by the worker of the workflow that calls it. */
  readonly local?: true;
  /** Milliseconds of work: the orchestrator worker heartbeats for it while it runs (keepBeating). */
  readonly beats?: true;
  /** A lane step's place in its lane's queue. */
  readonly kind?: StepKind;
  readonly limits: StepLimits;
  /** The loop.yaml `commands.<key>` it may run. */
  readonly commands: readonly CommandKey[];
  /** Its files in `<state_dir>/logs/`, by what each holds; `<field>` is filled in (stepLog). */
  readonly logs: Readonly<Record<string, string>>;
  /** One line saying what a call does, from its first argument (Web UI metadata, never replayed). */
  readonly summary: (input: StepInput) => string;
}

/** A loop.yaml `commands.<key>`. */
export type CommandKey = keyof LoopConfig['commands'];

/**
 * How long an orchestrator step of milliseconds (candidates, file checks, manifests, packaging
 * requests, a child's outcome) may go without a heartbeat. The limit that counts is this one: the
 * orchestrator worker beats for each while it runs (`beats`), and an attempt whose worker died is
 * retried on another orchestrator within it, where the 5-minute start-to-close limit would hold
 * the loop up for 5 minutes.
 */
export const CPU_HEARTBEAT_TIMEOUT = '10 seconds';

const MILLISECONDS = { startToClose: '5 minutes', heartbeat: CPU_HEARTBEAT_TIMEOUT, attempts: 5 } as const;

/** Failures no attempt of a lane step repeats: a command that cannot start, a contract broken. */
const FINAL_LANE_FAILURES = [COMMAND_NOT_FOUND, CONTRACT_ERROR] as const;

/** A lane step's limits: loop.yaml's, each call tried once and repeated by the workflow (workflows/lane-step.ts). */
const onLane = <T extends TimeoutKey, R extends RetriesKey>(timeout: T, attempts: R) =>
  ({
    startToClose: { timeouts: timeout },
    heartbeat: { timeouts: 'heartbeat' },
    scheduleToStart: { timeouts: 'schedule_to_start' },
    attempts: { retries: attempts },
    final: FINAL_LANE_FAILURES,
  }) as const;

const NO_COMMAND = { commands: [], logs: {} } as const;

export const STEPS = {
  readCandidates: {
    queue: 'orchestrator',
    beats: true,
    limits: MILLISECONDS,
    ...NO_COMMAND,
    summary: (input) => `read the candidates file ${input.file ?? ''}`.trim(),
  },
  buildSplit: {
    queue: 'orchestrator',
    // Two attempts; a command that is not there is not tried again.
    limits: {
      startToClose: { timeouts: 'split' },
      heartbeat: { timeouts: 'heartbeat' },
      attempts: 2,
      final: [COMMAND_NOT_FOUND],
    },
    commands: ['split_generate', 'split_carve'],
    logs: { split: 'split-gen-<generation>.log' },
    summary: (input) => `build the split of generation ${input.generation ?? '?'} (seed ${input.splitSeed ?? '?'})`,
  },
  prepareRun: {
    queue: 'orchestrator',
    // In the training run's first workflow task: no task-queue round trip between a lane freeing and training.
    local: true,
    beats: true,
    limits: { startToClose: '1 minute', attempts: 5 },
    ...NO_COMMAND,
    summary: (input) => `write the job config of ${input.runId ?? '?'}`,
  },
  writeEnsembleManifest: {
    queue: 'orchestrator',
    beats: true,
    limits: MILLISECONDS,
    ...NO_COMMAND,
    summary: (input) =>
      `write the ensemble manifest of ${count(input.members?.length ?? 0, 'member')}${input.name ? ` (${input.name})` : ''}`,
  },
  missingFiles: {
    queue: 'orchestrator',
    beats: true,
    limits: MILLISECONDS,
    ...NO_COMMAND,
    summary: (input) => `check ${count(input.files?.length ?? 0, 'file')} exist`,
  },
  waitForChange: {
    queue: 'orchestrator',
    // One heartbeating wait of an idle loop, of up to an hour.
    limits: { startToClose: '70 minutes', heartbeat: '1 minute', attempts: 3 },
    ...NO_COMMAND,
    summary: (input) =>
      (input.files?.length ?? 0) > 0
        ? `wait for ${count(input.files?.length ?? 0, 'teacher file')} or a change of the candidates file`
        : `wait up to ${Math.round((input.maxMs ?? 0) / 1000)} s for a change of the candidates file`,
  },
  requestPackaging: {
    queue: 'orchestrator',
    beats: true,
    limits: MILLISECONDS,
    ...NO_COMMAND,
    summary: (input) =>
      `hand champion ${checkpointOf(input.champion)} of generation ${input.champion?.generation ?? '?'} to packaging`,
  },
  stopPackaging: {
    queue: 'orchestrator',
    beats: true,
    limits: MILLISECONDS,
    ...NO_COMMAND,
    summary: () => 'stop packaging at once',
  },
  childOutcome: {
    queue: 'orchestrator',
    beats: true,
    limits: MILLISECONDS,
    ...NO_COMMAND,
    summary: (input) => `ask what became of ${input.kind ?? 'job'} child ${input.workflowId ?? '?'}`,
  },
  trainRun: {
    queue: 'lane',
    kind: 'training',
    limits: onLane('train', 'train'),
    commands: ['train'],
    logs: { train: '<runId>.train.log' },
    summary: (input) => `train ${input.runId ?? '?'}`,
  },
  evaluateRun: {
    queue: 'lane',
    kind: 'evaluation',
    limits: onLane('evaluate', 'evaluate'),
    // evaluate_ensemble: an ensemble's run (its manifest), one checkpoint a process.
    commands: ['evaluate', 'evaluate_ensemble'],
    logs: { batch: '<runId>.<role>.eval.log', checkpoint: '<runId>.<checkpoint>.<role>.eval.log' },
    summary: (input) =>
      `score ${count(input.checkpoints?.length ?? 0, 'checkpoint')} of ${input.run?.run_id ?? '?'} on ${input.role ?? 'test'}`,
  },
  evaluateReserve: {
    queue: 'lane',
    kind: 'reserve',
    limits: onLane('evaluate', 'evaluate'),
    commands: ['evaluate', 'evaluate_ensemble'],
    // The champion's checkpoint on the reserve role (band scores it lacks: evaluateRun's checkpoint log on validation).
    logs: { batch: '<runId>.reserve.eval.log', checkpoint: '<runId>.<checkpoint>.reserve.eval.log' },
    summary: (input) => `score champion ${checkpointOf(input.champion)} on reserve`,
  },
  buildTeacher: {
    queue: 'lane',
    kind: 'teacher',
    limits: onLane('evaluate', 'evaluate'),
    commands: ['evaluate', 'teacher_scores'],
    logs: {
      teacher: 'teacher-g<generation>.log',
      member: 'teacher-g<generation>.development.<runId>.log',
      compatible: 'teacher-g<generation>.development.compatible-<batch>.log',
    },
    summary: (input) =>
      `build the teacher of generation ${input.generation ?? '?'} from ${count(input.members?.length ?? 0, 'member')}`,
  },
  packageChampion: {
    queue: 'package',
    limits: {
      startToClose: { timeouts: 'package' },
      heartbeat: { timeouts: 'heartbeat' },
      attempts: { retries: 'package' },
    },
    commands: ['package'],
    // <epoch>: `-NNNN`, or nothing for an ensemble.
    logs: { package: 'package-<runId><epoch>.log' },
    summary: (input) => `package champion ${checkpointOf(input.champion)}`,
  },
  registerChampion: {
    queue: 'package',
    // A registry that is down is retried until loop.yaml `mlflow.retry_for` has passed (workflows/registrations.ts).
    limits: { startToClose: '2m', backoff: { initialInterval: '1s', backoffCoefficient: 2, maximumInterval: '30s' } },
    ...NO_COMMAND,
    summary: (input) => `register champion ${checkpointOf(input.champion)} in MLflow`,
  },
  probeLane: {
    queue: 'probed',
    workers: ['lane', 'orchestrator'],
    limits: { startToClose: '2 minutes', scheduleToStart: '1 minute', attempts: 1 },
    ...NO_COMMAND,
    summary: () => 'probe the lane',
  },
} as const satisfies Readonly<Record<string, Step>>;

type Steps = typeof STEPS;

/** Every step's name: the activity type history records. */
export type StepName = keyof Steps;

/** The workers that register a step: its `workers`, else its queue's. */
type WorkersOf<S> = S extends { readonly workers: readonly (infer W)[] }
  ? W
  : S extends { readonly queue: infer Q }
    ? Q
    : never;

/** The steps a kind of worker registers. */
export type StepOf<W extends StepWorker> = { [K in StepName]: W extends WorkersOf<Steps[K]> ? K : never }[StepName];

/** The steps of a job on its lane: training, test evaluation, reserve evaluation, teacher build. */
export type LaneStepName = { [K in StepName]: Steps[K]['queue'] extends 'lane' ? K : never }[StepName];

const STEP_NAMES = Object.keys(STEPS) as StepName[];

/** The steps a kind of worker registers, in the catalogue's order. */
export function stepsOf<W extends StepWorker>(worker: W): StepOf<W>[] {
  return STEP_NAMES.filter((name) => {
    const step: Step = STEPS[name];
    return (step.workers ?? [step.queue]).includes(worker);
  }) as StepOf<W>[];
}

/** Whether an activity type is one of the catalogue's. */
export function isStepName(name: string): name is StepName {
  return Object.hasOwn(STEPS, name);
}

/** The `<field>`s a log name template holds. */
type LogFields<T extends string> = T extends `${string}<${infer Field}>${infer Rest}` ? Field | LogFields<Rest> : never;

/** A log's file name from its step's template: `stepLog(STEPS.trainRun.logs.train, { runId })`. */
export function stepLog<T extends string>(template: T, fields: Readonly<Record<LogFields<T>, string>>): string {
  const values: Readonly<Record<string, string>> = fields;
  return template.replace(/<(\w+)>/g, (whole, field: string) => values[field] ?? whole);
}

/** The lane steps, in the catalogue's order. */
const LANE_STEPS = STEP_NAMES.filter((name) => STEPS[name].queue === 'lane') as LaneStepName[];

/** A value for each lane step: `fill('trainRun')` ... in the catalogue's order. */
export function eachLaneStep<T>(fill: (name: LaneStepName) => T): Record<LaneStepName, T> {
  return Object.fromEntries(LANE_STEPS.map((name) => [name, fill(name)])) as Record<LaneStepName, T>;
}
