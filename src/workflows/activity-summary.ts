// A one-line summary on every activity the loop's workflows schedule (the `summary` activity
// option, user metadata shown in the Web UI's history), so the history reads as the loop's story:
// "train champ-g001-r0002-base" instead of a row of `trainRun` events. Summaries are metadata on
// the command, not part of it: histories recorded without them replay unchanged (test/replay).
import type { ActivityOptions } from '@temporalio/common';
import type { LoopActivities } from './activity-types.js';

/** The fields of activity inputs a summary names; every one optional, as inputs differ. */
interface Described {
  readonly runId?: string;
  readonly run?: { readonly run_id?: string };
  readonly checkpoints?: readonly string[];
  readonly role?: string;
  readonly candidate?: { readonly name?: string };
  readonly champion?: { readonly run_id?: string; readonly checkpoint_name?: string; readonly generation?: number };
  readonly checkpointName?: string;
  readonly generation?: number;
  readonly members?: readonly unknown[];
  readonly name?: string;
  readonly file?: string;
  readonly files?: readonly string[];
  readonly candidatesFile?: string;
  readonly maxMs?: number;
  readonly workflowId?: string;
  readonly kind?: string;
  readonly splitSeed?: number;
}

const count = (n: number, one: string): string => `${n} ${one}${n === 1 ? '' : 's'}`;

const checkpointOf = (champion: Described['champion']): string =>
  `${champion?.run_id ?? '?'} ${champion?.checkpoint_name ?? '?'}`;

/**
 * Every activity type and how it reads in the history: a new activity is not done until it has
 * one (the compiler asks, from LoopActivities). A type this code does not know reads as its name.
 */
const summaries = {
  readCandidates: (input) => `read the candidates file ${input.file ?? ''}`.trim(),
  buildSplit: (input) => `build the split of generation ${input.generation ?? '?'} (seed ${input.splitSeed ?? '?'})`,
  prepareRun: (input) => `write the job config of ${input.runId ?? '?'}`,
  trainRun: (input) => `train ${input.runId ?? '?'}`,
  evaluateRun: (input) =>
    `score ${count(input.checkpoints?.length ?? 0, 'checkpoint')} of ${input.run?.run_id ?? '?'} on ${input.role ?? 'test'}`,
  evaluateReserve: (input) => `score champion ${checkpointOf(input.champion)} on reserve`,
  buildTeacher: (input) =>
    `build the teacher of generation ${input.generation ?? '?'} from ${count(input.members?.length ?? 0, 'member')}`,
  writeEnsembleManifest: (input) =>
    `write the ensemble manifest of ${count(input.members?.length ?? 0, 'member')}${input.name ? ` (${input.name})` : ''}`,
  missingFiles: (input) => `check ${count(input.files?.length ?? 0, 'file')} exist`,
  waitForChange: (input) =>
    (input.files?.length ?? 0) > 0
      ? `wait for ${count(input.files?.length ?? 0, 'teacher file')} or a change of the candidates file`
      : `wait up to ${Math.round((input.maxMs ?? 0) / 1000)} s for a change of the candidates file`,
  requestPackaging: (input) =>
    `hand champion ${checkpointOf(input.champion)} of generation ${input.champion?.generation ?? '?'} to packaging`,
  stopPackaging: () => 'stop packaging at once',
  childOutcome: (input) => `ask what became of ${input.kind ?? 'job'} child ${input.workflowId ?? '?'}`,
  packageChampion: (input) => `package champion ${checkpointOf(input.champion)}`,
  registerChampion: (input) => `register champion ${checkpointOf(input.champion)} in MLflow`,
  probeLane: () => 'probe the lane',
} satisfies Record<keyof LoopActivities, (input: Described) => string>;

const byType: Readonly<Record<string, (input: Described) => string>> = summaries;

/** The longest summary kept: the Web UI shows one line. */
const MAX_SUMMARY = 200;

/** One line saying what an activity call does, from its type and its first argument. */
export function activitySummary(activityType: string, input: unknown): string {
  const describe = byType[activityType];
  const described = typeof input === 'object' && input !== null ? (input as Described) : {};
  const text = describe ? describe(described) : activityType;
  const line = text.replace(/\s+/g, ' ');
  return line.length > MAX_SUMMARY ? `${line.slice(0, MAX_SUMMARY - 1)}…` : line;
}

/** What proxyActivities and proxyLocalActivities return: each function also takes call-site options. */
type Summarizable<T> = {
  readonly [K in keyof T]: T[K] & {
    executeWithOptions(options: Pick<ActivityOptions, 'summary'>, args: unknown[]): Promise<unknown>;
  };
};

/**
 * The same activity proxy, each call carrying its summary (`activitySummary`). Options a caller
 * passes to `executeWithOptions` win over the summary.
 */
export function withSummaries<T extends object>(proxy: T): T {
  const inner = proxy as unknown as Summarizable<Record<string, (...args: unknown[]) => Promise<unknown>>>;
  return new Proxy(proxy, {
    get(_, name) {
      if (typeof name !== 'string') return undefined;
      const fn = inner[name];
      if (fn === undefined) return undefined;
      const summarized = (...args: unknown[]) =>
        fn.executeWithOptions({ summary: activitySummary(name, args[0]) }, args);
      summarized.executeWithOptions = (options: ActivityOptions, args: unknown[]) =>
        fn.executeWithOptions({ summary: activitySummary(name, args[0]), ...options }, args);
      return summarized;
    },
  });
}
