import { z } from 'zod';

/** An integer no smaller than `min`; the message says so whatever was wrong. */
export function intAtLeast(min: number, expected = `an integer >= ${min}`) {
  return z.int({ error: expected }).min(min, { error: expected });
}

/** A number no smaller than `min`. */
export function numberAtLeast(min: number, expected = `a number >= ${min}`) {
  return z.number({ error: expected }).min(min, { error: expected });
}

/** A non-empty string described as `expected` (e.g. "a path"). */
export function nonEmptyString(expected: string) {
  return z.string({ error: expected }).min(1, { error: `${expected} (not empty)` });
}
