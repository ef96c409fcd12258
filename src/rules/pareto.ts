import { comparedBlock } from './compared.js';
import { dominates } from './dominance.js';
import type { Comparable, CompareKey } from './types.js';

/** The rows no other row dominates, in ledger order; rows with equal counts all stay. */
export function paretoFront<R extends Comparable>(rows: readonly R[], key: CompareKey = 'result'): readonly R[] {
  return rows.filter((row) => !rows.some((other) => dominates(comparedBlock(other, key), comparedBlock(row, key))));
}

/** The front after appending one row; equals `paretoFront` of all rows so far, in the same order. */
export function incrementalParetoFront<R extends Comparable>(
  front: readonly R[],
  row: R,
  key: CompareKey = 'result',
): readonly R[] {
  const counts = comparedBlock(row, key);
  // Dominance is transitive, so a row dominated by anyone so far is dominated by a member.
  if (front.some((member) => dominates(comparedBlock(member, key), counts))) {
    return front;
  }
  return [...front.filter((member) => !dominates(counts, comparedBlock(member, key))), row];
}
