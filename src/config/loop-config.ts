import { z } from 'zod';
import { DEFAULT_BASE_SEED, TEACHER_PATH } from '../rules/constants.js';
import { DURATION_EXPECTED, isDuration, type DurationText } from './duration.js';
import { intAtLeast, nonEmptyString, numberAtLeast } from './fields.js';
import { DEFAULT_LOST_LANE_SENDS, LOOP_PRIORITY_MAX } from './lanes.js';
import { artifactsSchema } from '../artifacts/store-settings.js';
import { mlflowSchema } from '../registry/mlflow-settings.js';
import { notifySchema } from '../notify/settings.js';
import { parseYamlWith } from './yaml-text.js';
import { definedFields } from '../support/defined-fields.js';

/** The trainer's line (exit 1) that makes a run `no_eligible_checkpoint` rather than `train_failed`. */
const NO_CHECKPOINT_MARKER = 'no eligible checkpoint';

/** loop.yaml `timeouts.no_progress` when it is not set: how long a trainer may write nothing before it is killed. */
export const DEFAULT_NO_PROGRESS: DurationText = '2h';

/** How every command error message shows the expected form. */
const COMMAND_EXPECTED = 'a list of arguments, e.g. [python, -m, raina_laya.choice_train]';

/** The seed's commands: what a Python stack written for it runs. */
export const DEFAULT_COMMANDS = {
  train: ['python3', '-m', 'raina_laya.choice_train'],
  evaluate: ['python3', '-m', 'raina_laya.choice_evaluate'],
  evaluate_ensemble: ['python3', '-m', 'raina_laya.ensemble_evaluate'],
  split_generate: ['python3', 'scripts/generate_folder_grade_split.py'],
  split_carve: ['python3', 'scripts/carve_test_split.py'],
  teacher_scores: ['python3', 'scripts/teacher_scores.py'],
  package: ['python3', 'scripts/package_champion.py'],
} as const satisfies Record<string, readonly string[]>;

/** Host names become part of task queue names. */
const HOST_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

function argv(orNull = '') {
  return z
    .array(z.string({ error: 'an argument string (quote numbers, e.g. "4")' }), {
      error: (issue) =>
        issue.code !== 'invalid_type'
          ? undefined
          : typeof issue.input === 'string'
            ? `${COMMAND_EXPECTED}, not a shell string${orNull}`
            : `${COMMAND_EXPECTED}${orNull}`,
    })
    .min(1, { error: `a non-empty ${COMMAND_EXPECTED.slice(2)}${orNull}` });
}

function command(fallback: readonly string[]) {
  return argv().default(() => [...fallback]);
}

function optionalCommand(fallback: readonly string[]) {
  return argv(', or null for no packaging')
    .nullable()
    .default(() => [...fallback]);
}

function duration(fallback: DurationText) {
  return z.custom<DurationText>(isDuration, { error: DURATION_EXPECTED }).default(fallback);
}

function path(expected: string, fallback: string) {
  return nonEmptyString(expected).default(fallback);
}

/** A lane's jobs at once, and the free GPU memory a job needs, when loop.yaml does not say (a GPU worker started without loop.yaml too). */
export const DEFAULT_LANE_SLOTS = 1;
export const DEFAULT_MIN_FREE_GIB = 30;
/**
 * How long a lane gives a stopped job's processes between SIGTERM and SIGKILL when loop.yaml
 * does not say: inside the 30 s a spot VM gets on GKE (AWS gives 120 s: set `kill_grace` higher there).
 */
export const DEFAULT_KILL_GRACE: DurationText = '25s';

const usdPerGpuHour = numberAtLeast(0, 'a price in US dollars per GPU-hour (a number >= 0)');

const laneSchema = z.strictObject(
  {
    host: z
      .string({ error: "a host name: letters, digits, '_', '-', '.'" })
      .regex(HOST_PATTERN, { error: "a host name: letters, digits, '_', '-', '.'" }),
    device: intAtLeast(0, 'a GPU index (an integer >= 0)'),
    slots: intAtLeast(1, 'a number of concurrent jobs (an integer >= 1)').default(DEFAULT_LANE_SLOTS),
    min_free_gib: numberAtLeast(0, 'free GPU memory in GiB (a number >= 0)').optional(),
    // Optional, absent = the loop's usd_per_gpu_hour (or none): what an hour of this lane's GPU costs.
    usd_per_gpu_hour: usdPerGpuHour.optional(),
    // Optional, absent = DEFAULT_KILL_GRACE: read by the lane's worker only, never by the loop.
    kill_grace: z.custom<DurationText>(isDuration, { error: DURATION_EXPECTED }).optional(),
    // Optional, absent = 0 (steps start in the order they came): read by the lane's worker only.
    // How many later steps may start before one that waits for GPU memory (docs/behaviour.md 4.2).
    overtaking: intAtLeast(
      0,
      'a number of later steps that may start before a waiting one (an integer >= 0)',
    ).optional(),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? 'a lane: {host, device, slots?, min_free_gib?, usd_per_gpu_hour?, kill_grace?, overtaking?}'
        : undefined,
  },
);

const LANES_EXPECTED = 'a non-empty list of lanes (one per GPU), e.g. [{host: gpu-a, device: 0}]';

const lanesSchema = z
  .array(laneSchema, { error: LANES_EXPECTED })
  .min(1, { error: LANES_EXPECTED })
  .superRefine((lanes, context) => {
    const seen = new Map<string, number>();
    lanes.forEach((lane, index) => {
      const key = `${lane.host}\u0000${lane.device}`;
      const earlier = seen.get(key);
      if (earlier === undefined) {
        seen.set(key, index);
        return;
      }
      context.addIssue({
        code: 'custom',
        path: [index],
        input: lane,
        message: `a GPU no other lane uses (lanes.${earlier} is also host ${JSON.stringify(lane.host)}, device ${lane.device})`,
      });
    });
  });

const commandsSchema = z.strictObject({
  train: command(DEFAULT_COMMANDS.train),
  evaluate: command(DEFAULT_COMMANDS.evaluate),
  evaluate_ensemble: command(DEFAULT_COMMANDS.evaluate_ensemble),
  split_generate: command(DEFAULT_COMMANDS.split_generate),
  split_carve: command(DEFAULT_COMMANDS.split_carve),
  teacher_scores: command(DEFAULT_COMMANDS.teacher_scores),
  package: optionalCommand(DEFAULT_COMMANDS.package),
});

const timeoutsSchema = z.strictObject({
  train: duration('7d'),
  no_progress: duration(DEFAULT_NO_PROGRESS),
  evaluate: duration('6h'),
  split: duration('1h'),
  package: duration('2h'),
  heartbeat: duration('2m'),
  schedule_to_start: duration('10m'),
});

const attempts = (fallback: number) =>
  intAtLeast(1, 'a maximum number of attempts (an integer >= 1)').default(fallback);

const retriesSchema = z.strictObject({
  train: attempts(3),
  evaluate: attempts(3),
  package: attempts(1),
  // A lane lost under a training or an evaluation (worker killed, preempted, stopped at once) is
  // sent again this many times apart from the step's own attempts (0: losses count as attempts).
  lost_lane: intAtLeast(0, 'a number of lanes lost that a step is sent again after (an integer >= 0)').default(
    DEFAULT_LOST_LANE_SENDS,
  ),
  // A step that runs out of GPU memory waits for room and runs again this many times apart from its
  // attempts (contract/lane-job.ts). Optional, absent = 4; no default written in, so a default
  // config (and every history it starts) stays as it was.
  oom: intAtLeast(0, 'a number of out-of-memory waits a GPU step gets (an integer >= 0)').optional(),
});

/** loop.yaml: everything the seed takes as flags, plus lanes, commands, timeouts and retries. */
/** loop.yaml `gpu_needs`: what each training job may grow to on its lane's GPU (docs/operating.md, "On a real GPU box"). */
const gpuNeedsSchema = z.strictObject(
  {
    learn: z.boolean({ error: 'true or false' }).optional(),
    margin: z
      .number({ error: 'a number' })
      .refine((margin) => margin >= 1, { error: "a factor >= 1 over a candidate's peak, e.g. 1.1" })
      .optional(),
    candidates: z
      .record(nonEmptyString('a candidate name'), numberAtLeast(0, 'GPU memory in GiB (a number >= 0)'), {
        error: 'a mapping of candidate name to GiB, e.g. {large: 48}',
      })
      .optional(),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? 'a mapping: {learn?, margin?, candidates?}'
        : issue.code === 'unrecognized_keys'
          ? `unknown key ${issue.keys.join(', ')}: gpu_needs takes learn, margin and candidates`
          : undefined,
  },
);

/** The two things a loop does when a generation's test-set budget is spent (docs/behaviour.md, "Test-set budget"). */
const TEST_BUDGET_SPENT = ['freeze', 'advance'] as const;

/** loop.yaml `test_budget`: how many reads of the working test set a generation may make before its champion is frozen. */
const testBudgetSchema = z.strictObject(
  {
    reads: intAtLeast(1, 'a number of test-set reads per generation (an integer >= 1), e.g. 300'),
    when_spent: z
      .enum(TEST_BUDGET_SPENT, {
        error: "'freeze' (no promotion until the next generation) or 'advance' (a new split at once)",
      })
      .default('freeze'),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type'
        ? 'a mapping: {reads, when_spent?}, e.g. {reads: 300, when_spent: advance}'
        : issue.code === 'unrecognized_keys'
          ? `unknown key ${issue.keys.join(', ')}: test_budget takes reads and when_spent`
          : undefined,
  },
);

export const loopConfigSchema = z
  .strictObject(
    {
      workdir: nonEmptyString('a directory path').optional(),
      state_dir: path('a directory path', 'artifacts/champion-loop'),
      runs_root: path('a directory path', 'artifacts/training-runs'),
      data_root: nonEmptyString('a directory path to the training data'),
      candidates: nonEmptyString('a path to the candidates file (candidates.yaml)'),
      parallel: intAtLeast(1).default(5),
      base_seed: z.int({ error: 'an integer seed' }).default(DEFAULT_BASE_SEED),
      saturation_evals: intAtLeast(1).default(200),
      max_reserve_checks: intAtLeast(1).default(3),
      teacher_after_round: intAtLeast(0, 'a round number (an integer >= 0; 0 = never build a teacher)').default(0),
      teacher_path: path('a file path ({generation} is expanded)', TEACHER_PATH),
      reuse_teacher_preparation: z.boolean({ error: 'true or false' }).default(false),
      band_decisions: z.boolean({ error: 'true or false' }).default(false),
      // Optional, absent = the seed's `dominance` (docs/champion-rules.md); no default
      // written in, so a default config (and every history it starts) stays as it was.
      champion_rule: z
        .enum(['dominance', 'ladder', 'paired'], { error: "'dominance' (the default), 'ladder' or 'paired'" })
        .optional(),
      // `champion_rule: paired`: family-wise significance level over the two error classes.
      alpha: z
        .number({ error: 'a number' })
        .refine((alpha) => alpha > 0 && alpha < 1, {
          error: 'a significance level strictly between 0 and 1, e.g. 0.05',
        })
        .optional(),
      ladder_margin: z
        .number({ error: 'a number' })
        .refine((margin) => (margin > 0 && margin < 1) || (Number.isInteger(margin) && margin >= 1), {
          error: 'a whole number of items (1 or more) or a fraction of the class strictly between 0 and 1, e.g. 0.01',
        })
        .optional(),
      // Optional, absent = no budget: reads only counted (docs/behaviour.md, "Test-set budget"); no
      // default written in, so a default config (and every history it starts) stays as it was.
      test_budget: testBudgetSchema.optional(),
      // Optional, absent = max(500, 32 x parallel) (generation/hand-over.ts); no default written in,
      // so a default config (and every history it starts) stays as it was.
      max_run_events: intAtLeast(50).optional(),
      score_cache_dir: nonEmptyString('a directory path, or null for no score cache').nullable().default(null),
      min_free_gib: numberAtLeast(0, 'free GPU memory in GiB (a number >= 0)').default(DEFAULT_MIN_FREE_GIB),
      // Optional: what an hour of a lane's GPU costs, for lanes that do not say (run rows' gpu_usd).
      usd_per_gpu_hour: usdPerGpuHour.optional(),
      no_checkpoint_marker: nonEmptyString("the trainer's log line that means 'no eligible checkpoint'").default(
        NO_CHECKPOINT_MARKER,
      ),
      // Optional: a stack's own line for a GPU out-of-memory, besides PyTorch's, JAX's and CUDA's
      // (docs/contract.md, "GPU memory"); no default written in.
      oom_marker: nonEmptyString("the stack's log line that means 'out of GPU memory'").optional(),
      // Optional, absent = a run whose training attempt was lost is trained afresh (docs/contract.md,
      // "Resuming a lost run"); no default written in, so a default config stays as it was.
      resume_flag: z
        .string({ error: "the trainer's flag that takes a checkpoint to resume from, e.g. --resume-from" })
        .regex(/^-/, { error: "the trainer's flag that takes a checkpoint to resume from, e.g. --resume-from" })
        .optional(),
      // Optional, absent = each candidate's need learned from its runs' peaks, margin 1.1
      // (rules/gpu-needs.ts); no default written in, so a default config stays as it was.
      gpu_needs: gpuNeedsSchema.optional(),
      // Optional, absent = 0: how far this loop's lane steps stand back in a lane's queue behind
      // other loops' (0 a production gate, up to 4 an experiment that yields; workflows/step-priority.ts).
      // No default written in, so a default config (and every history it starts) stays as it was.
      priority: z
        .int({ error: `a whole number from 0 (first, the default) to ${LOOP_PRIORITY_MAX} (last)` })
        .min(0, { error: `a whole number from 0 (first, the default) to ${LOOP_PRIORITY_MAX} (last)` })
        .max(LOOP_PRIORITY_MAX, { error: `a whole number from 0 (first, the default) to ${LOOP_PRIORITY_MAX} (last)` })
        .optional(),
      // Optional, absent = 1: this loop's share of a shared lane against other loops' (Temporal's
      // fairness weight, its loop id the key). No default written in.
      fairness_weight: z
        .number({ error: 'a weight from 0.001 to 1000 (1 = an equal share), e.g. 2' })
        .refine((weight) => weight >= 0.001 && weight <= 1000, {
          error: 'a weight from 0.001 to 1000 (1 = an equal share), e.g. 2',
        })
        .optional(),
      lanes: lanesSchema,
      commands: commandsSchema.prefault({}),
      timeouts: timeoutsSchema.prefault({}),
      retries: retriesSchema.prefault({}),
      // Optional: where packaged champions are registered (docs/integrations.md, "Model registry (MLflow)").
      mlflow: mlflowSchema.optional(),
      // Optional: an S3-compatible store the loop keeps packages in (docs/artifacts.md); absent: local disk only.
      artifacts: artifactsSchema.optional(),
      // Optional: webhooks told when something happens (docs/integrations.md, "Notifications").
      notify: notifySchema.optional(),
    },
    { error: (issue) => (issue.code === 'invalid_type' ? 'a mapping of loop settings' : undefined) },
  )
  .transform((config) => ({
    ...config,
    // A lane without its own memory floor takes the loop's.
    lanes: config.lanes.map((lane) => {
      const usd = lane.usd_per_gpu_hour ?? config.usd_per_gpu_hour;
      return {
        ...lane,
        min_free_gib: lane.min_free_gib ?? config.min_free_gib,
        ...definedFields({ usd_per_gpu_hour: usd }),
      };
    }),
  }));

/** loop.yaml as written, defaults applied; `workdir` may be absent and paths relative. */
export type LoopConfigFile = z.output<typeof loopConfigSchema>;

/** A loaded loop.yaml: defaults applied, `workdir` and every path field absolute. */
export type LoopConfig = Omit<LoopConfigFile, 'workdir'> & { readonly workdir: string };

/** Parses loop.yaml text (no file access, paths left as written); throws a ConfigError. */
export function parseLoopConfig(text: string, file: string): LoopConfigFile {
  return parseYamlWith(loopConfigSchema, text, file).data;
}
