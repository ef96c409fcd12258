import { SUMMARY_KEYS } from './types.js';
import type { EvalRow, EvalSummary } from './types.js';

/** The compact reference to an eval row that state and event rows carry (docs/behaviour.md, section 9). */
export function evalSummary(row: EvalRow | null): EvalSummary | null {
  if (row === null) {
    return null;
  }
  return Object.fromEntries(SUMMARY_KEYS.map((key) => [key, row[key]])) as EvalSummary;
}
