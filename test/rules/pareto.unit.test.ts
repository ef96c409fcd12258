import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { dominates } from '../../src/rules/dominance.js';
import { incrementalParetoFront, paretoFront } from '../../src/rules/pareto.js';
import type { CompareKey, Counts } from '../../src/rules/types.js';

interface Row {
  readonly id: number;
  readonly result: Counts;
  readonly decided: Counts;
}

const row = (id: number, f2p: number, p2f: number, decided: [number, number] = [f2p, p2f]): Row => ({
  id,
  result: { fail_to_pass_count: f2p, pass_to_fail_count: p2f },
  decided: { fail_to_pass_count: decided[0], pass_to_fail_count: decided[1] },
});

const ids = (rows: readonly Row[]): number[] => rows.map((r) => r.id);

const arbitraryRows = fc
  .array(fc.tuple(fc.nat({ max: 4 }), fc.nat({ max: 4 }), fc.nat({ max: 4 }), fc.nat({ max: 4 })), {
    maxLength: 30,
  })
  .map((points) => points.map(([a, b, c, d], id) => row(id, a, b, [c, d])));

const arbitraryKey = fc.constantFrom<CompareKey>('result', 'decided');

const fold = (rows: readonly Row[], key: CompareKey): readonly Row[] =>
  rows.reduce<readonly Row[]>((front, next) => incrementalParetoFront(front, next, key), []);

describe('paretoFront', () => {
  it('keeps the rows nothing dominates, in ledger order', () => {
    const rows = [row(0, 5, 5), row(1, 2, 8), row(2, 4, 4), row(3, 1, 9), row(4, 4, 6)];
    expect(ids(paretoFront(rows))).toEqual([1, 2, 3]);
  });

  it('keeps every row of a tie', () => {
    const rows = [row(0, 3, 3), row(1, 3, 3), row(2, 4, 3), row(3, 3, 3)];
    expect(ids(paretoFront(rows))).toEqual([0, 1, 3]);
  });

  it('compares on the decided block when asked', () => {
    const rows = [row(0, 1, 1, [5, 5]), row(1, 2, 2, [4, 4])];
    expect(ids(paretoFront(rows))).toEqual([0]);
    expect(ids(paretoFront(rows, 'decided'))).toEqual([1]);
  });

  it('is empty for no rows', () => {
    expect(paretoFront([])).toEqual([]);
  });

  it('is exactly the undominated rows: members never dominate each other and every other row is dominated by a member', () => {
    fc.assert(
      fc.property(arbitraryRows, arbitraryKey, (rows, key) => {
        const front = paretoFront(rows, key);
        const members = new Set(front);
        expect(ids(front)).toEqual(ids(rows.filter((r) => members.has(r))));
        for (const r of rows) {
          const dominatedByMember = front.some((m) => dominates(m[key], r[key]));
          expect(members.has(r)).toBe(!dominatedByMember);
        }
      }),
    );
  });
});

describe('incrementalParetoFront', () => {
  it('leaves the front as it was when a member dominates the new row', () => {
    const front = [row(0, 1, 4), row(1, 3, 2)];
    expect(incrementalParetoFront(front, row(2, 3, 3))).toBe(front);
  });

  it('drops the members the new row dominates and appends it at the end', () => {
    const front = [row(0, 1, 4), row(1, 3, 2), row(2, 4, 1)];
    expect(ids(incrementalParetoFront(front, row(3, 2, 2)))).toEqual([0, 2, 3]);
  });

  it('appends a row that ties a member', () => {
    const front = [row(0, 1, 4), row(1, 3, 2)];
    expect(ids(incrementalParetoFront(front, row(2, 3, 2)))).toEqual([0, 1, 2]);
  });

  it('does not change the front it was given', () => {
    const front = [row(0, 3, 3)];
    incrementalParetoFront(front, row(1, 1, 1));
    expect(ids(front)).toEqual([0]);
  });

  it('compares on the decided block when asked', () => {
    const front = [row(0, 1, 1, [5, 5])];
    expect(ids(incrementalParetoFront(front, row(1, 2, 2, [4, 4]), 'decided'))).toEqual([1]);
    expect(ids(incrementalParetoFront(front, row(1, 2, 2, [4, 4])))).toEqual([0]);
  });

  it('folded over any sequence gives the full front: same rows, same order', () => {
    fc.assert(
      fc.property(arbitraryRows, arbitraryKey, (rows, key) => {
        expect(fold(rows, key)).toEqual(paretoFront(rows, key));
        expect(ids(fold(rows, key))).toEqual(ids(paretoFront(rows, key)));
      }),
    );
  });

  it('equals the full front after every single step', () => {
    fc.assert(
      fc.property(arbitraryRows, (rows) => {
        let front: readonly Row[] = [];
        rows.forEach((next, i) => {
          front = incrementalParetoFront(front, next);
          expect(ids(front)).toEqual(ids(paretoFront(rows.slice(0, i + 1))));
        });
      }),
    );
  });
});
