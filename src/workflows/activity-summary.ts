// A one-line summary on every activity the loop's workflows schedule (the `summary` activity
// option, user metadata shown in the Web UI's history), so the history reads as the loop's story:
// "train champ-g001-r0002-base" instead of a row of `trainRun` events. Summaries are metadata on
// the command, not part of it: histories recorded without them replay unchanged (test/replay).
import type { ActivityOptions } from '@temporalio/common';
import { isStepName, STEPS } from '../contract/steps.js';
import type { StepInput } from '../contract/step-input.js';

/** The longest summary kept: the Web UI shows one line. */
const MAX_SUMMARY = 200;

/** One line saying what an activity call does, from its type and its first argument. */
export function activitySummary(activityType: string, input: unknown): string {
  const described = typeof input === 'object' && input !== null ? (input as StepInput) : {};
  // Every activity type a worker registers has its summary in the catalogue; one this code does not know reads as its name.
  const text = isStepName(activityType) ? STEPS[activityType].summary(described) : activityType;
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
