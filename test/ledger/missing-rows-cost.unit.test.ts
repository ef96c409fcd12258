import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { missingRows } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow, PackageRow } from '../../src/ledger/rows.js';

// missingRows compares whole lines but writes out only rows whose time the other list holds:
// the same answer as comparing every line, at the cost of the rows that can match.

const packageRow = (second: number, pid: number): PackageRow => ({
  type: 'package',
  event: 'launched',
  generation: 1,
  run_id: 'r',
  epoch: 1,
  checkpoint_name: 'c',
  time: `2026-11-30T00:00:${String(second).padStart(2, '0')}.000Z`,
  pid,
});

/** What missingRows did before it looked at times: every line of both lists compared. */
function everyLine(have: readonly LedgerRow[], rows: readonly LedgerRow[]): LedgerRow[] {
  const counts = new Map<string, number>();
  for (const row of have) counts.set(JSON.stringify(row), (counts.get(JSON.stringify(row)) ?? 0) + 1);
  return rows.filter((row) => {
    const left = counts.get(JSON.stringify(row)) ?? 0;
    if (left > 0) counts.set(JSON.stringify(row), left - 1);
    return left === 0;
  });
}

describe('missing rows', () => {
  afterEach(() => vi.restoreAllMocks());

  it('gives what comparing every line gives, rows of one time but other fields included', () => {
    // Few times and few pids: many rows share a time without being the same row.
    const rows = fc.array(
      fc.tuple(fc.integer({ min: 0, max: 3 }), fc.integer({ min: 1, max: 3 })).map(([s, pid]) => packageRow(s, pid)),
      { maxLength: 14 },
    );
    fc.assert(
      fc.property(rows, rows, (have, more) => {
        expect(missingRows(have, more)).toEqual(everyLine(have, more));
        expect(missingRows(more, have)).toEqual(everyLine(more, have));
      }),
    );
  });

  it("writes out only the rows that can match, not the whole copy's", () => {
    const copy = Array.from({ length: 10_000 }, (_, i) => packageRow(i % 50, i));
    // History: the last rows of the copy and two new ones, at times only they have.
    const history = [...copy.slice(-5), { ...packageRow(0, 1), time: '2026-12-01T00:00:00.000Z' }];
    const stringify = vi.spyOn(JSON, 'stringify');
    const missing = missingRows(copy, history);
    // The copy rows sharing a time with a history row: 5 times x 200 rows each, plus the history's 6.
    expect(stringify.mock.calls.length).toBeLessThanOrEqual(5 * 200 + 6);
    expect(missing).toEqual([history[5]]);
    stringify.mockClear();
    // The other way round (what only the copy holds): the same few comparisons.
    expect(missingRows(history, copy)).toHaveLength(copy.length - 5);
    expect(stringify.mock.calls.length).toBeLessThanOrEqual(5 * 200 + 6);
  });

  it('compares nothing when either side is empty', () => {
    const copy = Array.from({ length: 100 }, (_, i) => packageRow(i % 60, i));
    const stringify = vi.spyOn(JSON, 'stringify');
    expect(missingRows(copy, [])).toEqual([]);
    expect(missingRows([], copy)).toEqual(copy);
    expect(stringify).not.toHaveBeenCalled();
  });
});
