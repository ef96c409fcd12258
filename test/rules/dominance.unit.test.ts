import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { counts, dominates } from '../../src/rules/dominance.js';
import type { Counts } from '../../src/rules/types.js';

const point = (f2p: number, p2f: number): Counts => ({ fail_to_pass_count: f2p, pass_to_fail_count: p2f });

const grid: Counts[] = [];
for (let f2p = 0; f2p <= 3; f2p += 1) {
  for (let p2f = 0; p2f <= 3; p2f += 1) {
    grid.push(point(f2p, p2f));
  }
}

const arbitraryCounts = fc.tuple(fc.nat({ max: 6 }), fc.nat({ max: 6 })).map(([f2p, p2f]) => point(f2p, p2f));

describe('counts', () => {
  it('reads Fail->Pass first and Pass->Fail second', () => {
    expect(counts(point(4, 9))).toEqual([4, 9]);
  });
});

describe('dominates', () => {
  it('matches the definition on every pair of counts from 0 to 3', () => {
    for (const a of grid) {
      for (const b of grid) {
        const noWorse = a.fail_to_pass_count <= b.fail_to_pass_count && a.pass_to_fail_count <= b.pass_to_fail_count;
        const different =
          a.fail_to_pass_count !== b.fail_to_pass_count || a.pass_to_fail_count !== b.pass_to_fail_count;
        expect(dominates(a, b), `${JSON.stringify(a)} over ${JSON.stringify(b)}`).toBe(noWorse && different);
      }
    }
  });

  it('lets one better count win when the other is equal', () => {
    expect(dominates(point(2, 5), point(3, 5))).toBe(true);
    expect(dominates(point(3, 4), point(3, 5))).toBe(true);
  });

  it('does not decide a trade-off between the two counts', () => {
    expect(dominates(point(2, 6), point(3, 5))).toBe(false);
    expect(dominates(point(3, 5), point(2, 6))).toBe(false);
  });

  it('never lets equal counts dominate each other', () => {
    expect(dominates(point(3, 5), point(3, 5))).toBe(false);
  });

  it('is irreflexive', () => {
    fc.assert(fc.property(arbitraryCounts, (a) => !dominates(a, a)));
  });

  it('is antisymmetric', () => {
    fc.assert(fc.property(arbitraryCounts, arbitraryCounts, (a, b) => !(dominates(a, b) && dominates(b, a))));
  });

  it('is transitive', () => {
    fc.assert(
      fc.property(
        arbitraryCounts,
        arbitraryCounts,
        arbitraryCounts,
        (a, b, c) => !(dominates(a, b) && dominates(b, c)) || dominates(a, c),
      ),
    );
  });

  it('ignores every field but the two counts', () => {
    const withRates = { ...point(1, 1), fail_count: 10, pass_count: 1, rejected_total: 99 };
    expect(dominates(withRates, point(1, 2))).toBe(true);
  });
});
