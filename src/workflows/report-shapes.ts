// Signals are open to anyone who can reach the namespace (`temporal workflow signal`, the Web UI):
// a payload is checked for the shape its handler reads before the loop folds it, so a malformed
// signal is ignored (and logged) instead of failing every workflow task of the loop from then on.
// The ledger exporter applies the same checks, so both skip the same signals.
import type { PackageChampion } from '../activities/types.js';
import type { ReserveReport, RunReport, TeacherReport } from './messages.js';

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
  return isRecord(value) && typeof value.childId === 'string' && typeof value.jobId === 'string' && objectOrNull(value.row);
}

/** A champion for packaging, as the generation hands it over. */
export function isPackageChampion(value: unknown): value is PackageChampion {
  return (
    isRecord(value) &&
    typeof value.generation === 'number' &&
    typeof value.run_id === 'string' &&
    typeof value.checkpoint_name === 'string' &&
    typeof value.checkpoint === 'string' &&
    typeof value.config_path === 'string' &&
    typeof value.eval_json === 'string' &&
    typeof value.requested === 'string'
  );
}

/**
 * The reason an advance signal carries: its text, or `requested` when it has none (no input, an
 * empty text, or not a text at all), as the seed records an advance without a reason.
 */
export function advanceReasonOf(value: unknown): string {
  return typeof value === 'string' && value.trim() !== '' ? value : 'requested';
}
