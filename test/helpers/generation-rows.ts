import type { LedgerRow } from '../../src/ledger/rows.js';

/** A time `second` seconds into 2026-12-02 (ISO, as rows record it). */
export function secondsIn(second: number): string {
  const pad = (value: number) => String(value).padStart(2, '0');
  return `2026-12-02T00:${pad(Math.floor(second / 60))}:${pad(second % 60)}.000Z`;
}

/** A generation row opened at second `n`: the smallest row of the generation workflow, for ledger-order tests. */
export function generationAt(n: number): LedgerRow {
  return {
    type: 'generation',
    event: n === 1 ? 'start' : 'advance',
    generation: n,
    reason: 'initial',
    split_seed: 7 + n,
    previous_champion: null,
    previous_pareto_set: [],
    started: secondsIn(n),
  };
}
