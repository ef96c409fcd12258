// A generation's split that failed and was given up (patch split-gives-up): the ledger row the
// workflow writes into its memo, which the ledger fold reads back from history.
import type { SplitRow } from '../ledger/rows.js';

/** The memo key holding the given-up split's row (null once `resume` lifts it). */
export const SPLIT_FAILED_MEMO = 'split_failed';

export function splitFailedRow(generation: number, splitSeed: number, error: string, time: string): SplitRow {
  return { type: 'split', event: 'failed', generation, split_seed: splitSeed, error, time };
}

/** Whether a memo value read from history is such a row (anything else, e.g. null, is not). */
export function isSplitFailedRow(value: unknown): value is SplitRow {
  if (typeof value !== 'object' || value === null) return false;
  const row = value as Partial<Record<keyof SplitRow, unknown>>;
  return (
    row.type === 'split' &&
    row.event === 'failed' &&
    typeof row.generation === 'number' &&
    typeof row.split_seed === 'number' &&
    typeof row.error === 'string' &&
    typeof row.time === 'string'
  );
}
