import { describe, expect, it } from 'vitest';
import { CopyIndex } from '../../src/ledger-copy/copy-index.js';
import type { LedgerRow } from '../../src/ledger/rows.js';

const row = (n: number): LedgerRow => ({
  type: 'package',
  event: 'finished',
  generation: 1,
  run_id: `r${n}`,
  epoch: 1,
  checkpoint_name: 'c',
  time: `2026-11-30T00:00:${String(n).padStart(2, '0')}.000Z`,
  exit_code: 0,
});

describe('the copy index of a keeper', () => {
  it('finds nothing missing when the copy holds every row, and only the new rows as a run grows', () => {
    const index = new CopyIndex([row(1), row(2)]);
    expect(index.missing([{ key: 'a', rows: [row(1), row(2)] }])).toEqual([]);
    const missing = index.missing([{ key: 'a', rows: [row(1), row(2), row(3)] }]);
    expect(missing).toEqual([row(3)]);
    index.appended(missing);
    expect(index.missing([{ key: 'a', rows: [row(1), row(2), row(3)] }])).toEqual([]);
  });

  it('counts a row as often as it occurs: one line of the copy vouches for one row of history', () => {
    const index = new CopyIndex([row(1)]);
    expect(index.missing([{ key: 'a', rows: [row(1), row(1)] }])).toEqual([row(1)]);
  });

  it('keeps rows of a run whose history is gone, and adds nothing for them', () => {
    const index = new CopyIndex([row(1), row(2), row(3)]);
    expect(index.missing([{ key: 'b', rows: [row(3), row(4)] }])).toEqual([row(4)]);
  });

  it("does not add a reset run's rows again when the run it replaced drops out", () => {
    const index = new CopyIndex([]);
    const base = index.missing([{ key: 'base', rows: [row(1), row(2)] }]);
    index.appended(base);
    // The reset run holds the base run's rows up to the reset point, then its own.
    expect(index.missing([{ key: 'reset', rows: [row(1), row(2), row(5)] }])).toEqual([row(5)]);
  });
});
