import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { gateAuc } from '../../src/rules/gate-auc.js';

const pairwise = (margins: readonly number[], targets: readonly number[]): number | null => {
  let wins = 0;
  let ties = 0;
  let pairs = 0;
  margins.forEach((pass, i) => {
    if (targets[i] !== 1) {
      return;
    }
    margins.forEach((fail, j) => {
      if (targets[j] !== 0) {
        return;
      }
      pairs += 1;
      if (pass > fail) {
        wins += 1;
      } else if (pass === fail) {
        ties += 1;
      }
    });
  });
  return pairs === 0 ? null : (wins + 0.5 * ties) / pairs;
};

const scored = fc
  .array(fc.tuple(fc.integer({ min: -4, max: 4 }), fc.constantFrom(0, 1)), { maxLength: 40 })
  .map((items) => ({ margins: items.map(([m]) => m / 2), targets: items.map(([, t]) => t) }));

describe('gateAuc', () => {
  it('is 1 when every pass item scores above every fail item', () => {
    expect(gateAuc([-2, -1, 1, 2], [0, 0, 1, 1])).toBe(1);
  });

  it('is 0 when every pass item scores below every fail item', () => {
    expect(gateAuc([-2, -1, 1, 2], [1, 1, 0, 0])).toBe(0);
  });

  it('counts a tie between a pass and a fail item as one half', () => {
    expect(gateAuc([0, 0], [1, 0])).toBe(0.5);
    expect(gateAuc([1, 1, 1, 1], [1, 0, 1, 0])).toBe(0.5);
    // Pairs: (0.5>0.1) win, (0.5=0.5) tie, (0.2>0.1) win, (0.2<0.5) loss: 2.5 of 4.
    expect(gateAuc([0.5, 0.2, 0.1, 0.5], [1, 1, 0, 0])).toBe(0.625);
  });

  it('is null when a class is empty', () => {
    expect(gateAuc([], [])).toBeNull();
    expect(gateAuc([0.1, 0.2], [1, 1])).toBeNull();
    expect(gateAuc([0.1, 0.2], [0, 0])).toBeNull();
  });

  it('ranks infinite margins and treats -0 and 0 as a tie', () => {
    expect(gateAuc([Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY], [1, 0])).toBe(1);
    expect(gateAuc([Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY], [1, 0])).toBe(0.5);
    expect(gateAuc([-0, 0], [1, 0])).toBe(0.5);
  });

  it('refuses margins and targets of different lengths, NaN margins and targets other than 0 and 1', () => {
    expect(() => gateAuc([0.1], [])).toThrow(RangeError);
    expect(() => gateAuc([Number.NaN, 1], [1, 0])).toThrow(/NaN/);
    expect(() => gateAuc([0.1, 0.2], [1, 2])).toThrow(/not 0 or 1/);
  });

  it('equals the pairwise definition exactly', () => {
    fc.assert(
      fc.property(scored, ({ margins, targets }) => {
        expect(gateAuc(margins, targets)).toBe(pairwise(margins, targets));
      }),
    );
  });

  it('equals the pairwise definition on continuous margins', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ noNaN: true }), fc.constantFrom(0, 1)), { maxLength: 40 }), (items) => {
        const margins = items.map(([m]) => m);
        const targets = items.map(([, t]) => t);
        expect(gateAuc(margins, targets)).toBe(pairwise(margins, targets));
      }),
    );
  });

  it('equals the pairwise definition when many margins are infinite', () => {
    const extreme = fc.constantFrom(Number.NEGATIVE_INFINITY, -1, 0, 1, Number.POSITIVE_INFINITY);
    fc.assert(
      fc.property(fc.array(fc.tuple(extreme, fc.constantFrom(0, 1)), { maxLength: 60 }), (items) => {
        const margins = items.map(([m]) => m);
        const targets = items.map(([, t]) => t);
        expect(gateAuc(margins, targets)).toBe(pairwise(margins, targets));
      }),
    );
  });

  it('does not depend on the order of the items', () => {
    fc.assert(
      fc.property(scored, fc.nat(), ({ margins, targets }, shift) => {
        const n = margins.length;
        const rotate = <T>(xs: readonly T[]): T[] => xs.map((_, i) => xs[(i + shift) % n] as T);
        expect(gateAuc(rotate(margins), rotate(targets))).toBe(gateAuc(margins, targets));
      }),
    );
  });

  it('scores a hundred thousand items quickly, so it is not pairwise', () => {
    const n = 100_000;
    const margins = Array.from({ length: n }, (_, i) => ((i * 7919) % 1000) / 1000);
    const targets = Array.from({ length: n }, (_, i) => (i % 3 === 0 ? 1 : 0));
    const started = performance.now();
    const auc = gateAuc(margins, targets);
    expect(performance.now() - started).toBeLessThan(2000);
    expect(auc).not.toBeNull();
  });
});
