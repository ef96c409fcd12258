import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { mergeByTime, missingGenerations, missingRows, parseLedger } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow, PackageRow } from '../../src/ledger/rows.js';

const generationRow = (generation: number, started = `2026-11-30T00:00:0${generation}.000Z`): LedgerRow => ({
  type: 'generation',
  event: generation === 1 ? 'start' : 'advance',
  generation,
  reason: 'r',
  split_seed: generation,
  previous_champion: null,
  previous_pareto_set: [],
  started,
});

const packageRow = (time: string): PackageRow => ({
  type: 'package',
  event: 'finished',
  generation: 1,
  run_id: 'r',
  epoch: 1,
  checkpoint_name: 'c',
  time,
  exit_code: 0,
});

describe('ledger lines', () => {
  it('finds what a copy lacks: each row as often as it occurs, in the order of the rows', () => {
    const [a, b, c] = [generationRow(1), generationRow(2), generationRow(3)] as [LedgerRow, LedgerRow, LedgerRow];
    expect(missingRows([], [a, b])).toEqual([a, b]);
    expect(missingRows([a], [a, b, c])).toEqual([b, c]);
    expect(missingRows([a, b, c], [b])).toEqual([]);
    expect(missingRows([a], [a, a])).toEqual([a]);
  });

  it('never adds a row twice: the copy plus what it lacks holds every row of both', () => {
    const rows = fc.array(
      fc.integer({ min: 1, max: 5 }).map((n) => generationRow(n)),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(rows, rows, (have, more) => {
        const merged = [...have, ...missingRows(have, more)];
        const count = (list: readonly LedgerRow[], row: LedgerRow) =>
          list.filter((other) => JSON.stringify(other) === JSON.stringify(row)).length;
        for (const row of [...have, ...more])
          expect(count(merged, row)).toBe(Math.max(count(have, row), count(more, row)));
        // Adding again adds nothing.
        expect(missingRows(merged, more)).toEqual([]);
      }),
    );
  });

  it('keeps a torn last line out, and refuses a line that is no row before the end, naming it', () => {
    const text = `${JSON.stringify(generationRow(1))}\n{"type":"gen`;
    expect(parseLedger(text, 'ledger.jsonl').rows).toEqual([generationRow(1)]);
    expect(() => parseLedger(`{"type":"gen\n${JSON.stringify(generationRow(1))}\n`, 'ledger.jsonl')).toThrow(
      /^ledger\.jsonl:1: not a ledger row/,
    );
  });

  it('puts package rows before the first generation-workflow row that happened after them', () => {
    const rows = mergeByTime(
      [generationRow(1, '2026-11-30T00:00:01.000Z'), generationRow(2, '2026-11-30T00:00:03.000Z')],
      [packageRow('2026-11-30T00:00:02.000Z'), packageRow('2026-11-30T00:00:04.000Z')],
    );
    expect(rows.map((row) => (row.type === 'package' ? `p${row.time.slice(18, 19)}` : `g${row.generation}`))).toEqual([
      'g1',
      'p2',
      'g2',
      'p4',
    ]);
  });

  it('names the generations no row opens', () => {
    expect(missingGenerations([generationRow(1), generationRow(2)])).toEqual([]);
    expect(missingGenerations([generationRow(3)])).toEqual([1, 2]);
    expect(missingGenerations([])).toEqual([]);
  });
});
