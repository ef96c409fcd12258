// Signals are open to anyone who can reach the namespace (`temporal workflow signal`, the Web UI):
// a payload is checked for the shape its handler reads before the loop folds it, so a malformed
// signal is ignored (and logged) instead of failing every workflow task of the loop from then on.
// The ledger exporter applies the same checks, so both skip the same signals.
import type { PackageChampion, LaneAdmission } from '../activities/types.js';
import type { ReserveReport, RunReport, TeacherReport } from '../contract/child-reports.js';
import { isPackageChampion } from '../contract/packaging.js';

type Fields = Readonly<Record<string, unknown>>;

function isRecord(value: unknown): value is Fields {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const objectOrNull = (value: unknown): boolean => value === null || isRecord(value);

/** A training run's report, as trainingRun sends it. */
export function isRunReport(value: unknown): value is RunReport {
  return (
    isRecord(value) &&
    typeof value.childId === 'string' &&
    typeof value.jobId === 'string' &&
    objectOrNull(value.run) &&
    Array.isArray(value.evals) &&
    value.evals.every(isRecord) &&
    objectOrNull(value.selected) &&
    typeof value.laneUnavailable === 'boolean' &&
    Array.isArray(value.unscored)
  );
}

/** How a GPU lane admitted a training, as a run report carries it (a malformed one writes no dispatch rows). */
export function isLaneAdmission(value: unknown): value is LaneAdmission {
  return (
    isRecord(value) &&
    typeof value.worker === 'string' &&
    Number.isInteger(value.physical_device) &&
    Number.isInteger(value.slot) &&
    typeof value.need_mib === 'number' &&
    Number.isFinite(value.need_mib) &&
    typeof value.admitted === 'string'
  );
}

/** A reserve check's report, as reserveCheck sends it. */
export function isReserveReport(value: unknown): value is ReserveReport {
  return (
    isRecord(value) &&
    typeof value.childId === 'string' &&
    typeof value.jobId === 'string' &&
    isRecord(value.champion) &&
    typeof value.testEvals === 'number' &&
    objectOrNull(value.reserve)
  );
}

/** A teacher build's report, as teacherBuild sends it. */
export function isTeacherReport(value: unknown): value is TeacherReport {
  return (
    isRecord(value) && typeof value.childId === 'string' && typeof value.jobId === 'string' && objectOrNull(value.row)
  );
}

/**
 * The reason an advance signal carries: its text, or `requested` when it has none (no input, an
 * empty text, or not a text at all), as the seed records an advance without a reason.
 */
function advanceReasonOf(value: unknown): string {
  return typeof value === 'string' && value.trim() !== '' ? value : 'requested';
}

/** The most characters of an advance reason the loop keeps (state, ledger row, memo, continue-as-new input). */
export const MAX_REASON_CHARS = 1000;

/** A text cut to `max` characters, saying that it was cut and how long it was; unchanged when it fits. */
export function boundedText(text: string, max: number): string {
  return text.length <= max
    ? text
    : `${text.slice(0, max)} [cut: ${text.length} characters sent, the first ${max} kept]`;
}

/** An advance reason as the loop keeps it: at most MAX_REASON_CHARS characters, saying it was cut. */
export function boundedReason(reason: string): string {
  return boundedText(reason, MAX_REASON_CHARS);
}

/** The most eval rows (and checkpoints left to score) one run report may carry; more is not a report trainingRun sends. */
export const MAX_EVALS_PER_REPORT = 10_000;

/** The most characters of an error text from a report the loop keeps. */
export const MAX_ERROR_CHARS = 10_000;

/**
 * A run report within the loop's bounds: null when it carries more rows than any real run has,
 * else with its run row's error cut (the same object when nothing needed cutting).
 */
export function boundedRunReport(report: RunReport): RunReport | null {
  if (report.evals.length > MAX_EVALS_PER_REPORT || report.unscored.length > MAX_EVALS_PER_REPORT) return null;
  const error = report.run?.error;
  if (report.run && typeof error === 'string' && error.length > MAX_ERROR_CHARS)
    return { ...report, run: { ...report.run, error: boundedText(error, MAX_ERROR_CHARS) } };
  return report;
}

/** The most characters (as JSON) of a champion handed to packaging: paths and a few numbers, far below this. */
export const MAX_CHAMPION_CHARS = 65_536;

/** Whether a champion for packaging is within the loop's bounds (one sent by hand may not be). */
export function championWithinBounds(champion: PackageChampion): boolean {
  return JSON.stringify(champion).length <= MAX_CHAMPION_CHARS;
}

// What the loop folds of what was sent: one rule for the workflow's handlers and for a ledger
// read from history (ledger/history). `bounds` says whether the code that handled it bounds
// signals (patch bounded-signals); it is asked only when bounding would change something.

/** The run report the generation folds; null for one it skips (malformed, or over the bounds). */
export function foldedRunReport(sent: unknown, bounds: () => boolean): RunReport | null {
  if (!isRunReport(sent)) return null;
  const bounded = boundedRunReport(sent);
  return bounded !== sent && bounds() ? bounded : sent;
}

/** The advance reason the generation folds: cut when over MAX_REASON_CHARS. */
export function foldedAdvanceReason(sent: unknown, bounds: () => boolean): string {
  const text = advanceReasonOf(sent);
  return text.length > MAX_REASON_CHARS && bounds() ? boundedReason(text) : text;
}

/** The champion the packaging workflow takes; null for one it skips (malformed, or over the bounds). */
export function takenChampion(sent: unknown, bounds: () => boolean): PackageChampion | null {
  if (!isPackageChampion(sent)) return null;
  return championWithinBounds(sent) || !bounds() ? sent : null;
}

/** How a child ended without a report. */
export type ChildLoss =
  { readonly how: 'terminated' | 'cancelled' | 'timed-out' } | { readonly how: 'failed'; readonly message: string };

/** Why a child ended without a report, in the words of a given-up run row's error. */
export function childLostWhy(loss: ChildLoss): string {
  switch (loss.how) {
    case 'terminated':
      return 'was terminated';
    case 'cancelled':
      return 'was cancelled';
    case 'timed-out':
      return 'timed out';
    case 'failed':
      return `failed: ${loss.message}`;
  }
}
