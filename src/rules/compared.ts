import type { Comparable, CompareKey, Compared } from './types.js';

/** The block a row is compared on; throws because a missing block must never compare as zero. */
export function comparedBlock(row: Comparable, key: CompareKey): Compared {
  const block = row[key];
  if (block === null || block === undefined) {
    throw new TypeError(`eval row has no '${key}' block to compare on`);
  }
  return block;
}
