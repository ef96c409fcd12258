import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { fairCoinUpperTail } from '../../src/rules/binomial-tail.js';
import { exactMcNemar, holmRejects } from '../../src/rules/mcnemar.js';

const expectRelative = (actual: number, expected: number, tolerance: number): void => {
  if (expected === 0) {
    expect(actual).toBe(0);
    return;
  }
  expect(Math.abs(actual - expected) / expected, `${actual} vs ${expected}`).toBeLessThan(tolerance);
};

// Expected: P(X >= k), X ~ Binomial(n, 1/2), summed exactly with Python 3.11.7's fractions and
// math.comb (sum of comb(n, j) for j >= k, over 2**n), then converted to float once.
const tails: readonly (readonly [n: number, k: number, p: number])[] = [
  [0, 0, 1],
  [1, 1, 0.5],
  [5, 5, 0.03125],
  [10, 8, 0.0546875],
  [20, 15, 0.020694732666015625],
  [30, 10, 0.9786130273714662],
  [100, 60, 0.028443966820490395],
  [1000, 530, 0.03101159754918159],
  [2000, 1100, 4.228544767751963e-6],
  [5000, 2400, 0.9977647795188217],
  [3000, 1700, 1.4898202404571041e-13],
];

describe('fairCoinUpperTail', () => {
  it('matches exact rational sums, far past where 2^-n underflows', () => {
    for (const [n, k, p] of tails) {
      expectRelative(fairCoinUpperTail(n, k), p, 1e-11);
    }
  });

  it('is 1 at k <= 0 and 0 above n', () => {
    expect(fairCoinUpperTail(7, 0)).toBe(1);
    expect(fairCoinUpperTail(7, -3)).toBe(1);
    expect(fairCoinUpperTail(7, 8)).toBe(0);
  });

  it('refuses counts that are not whole numbers', () => {
    expect(() => fairCoinUpperTail(3.5, 1)).toThrow(RangeError);
    expect(() => fairCoinUpperTail(-1, 0)).toThrow(RangeError);
    expect(() => fairCoinUpperTail(4, 1.5)).toThrow(RangeError);
  });

  it('is symmetric: P(X >= k) + P(X >= n - k + 1) = 1', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 400 }), fc.integer({ min: 0, max: 400 }), (n, raw) => {
        const k = raw % (n + 1);
        expect(fairCoinUpperTail(n, k) + fairCoinUpperTail(n, n - k + 1)).toBeCloseTo(1, 10);
      }),
    );
  });

  it('falls as k rises', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 600 }), fc.integer({ min: 0, max: 600 }), (n, raw) => {
        const k = raw % n;
        expect(fairCoinUpperTail(n, k + 1)).toBeLessThanOrEqual(fairCoinUpperTail(n, k));
      }),
    );
  });
});

describe('exactMcNemar', () => {
  it('tests the champion-only count against a fair coin on all discordant items', () => {
    // 15 of 20 discordant items favour the challenger: P(X >= 15) from the table above.
    const result = exactMcNemar({ champion_only: 15, challenger_only: 5 });
    expectRelative(result.p_better, 0.020694732666015625, 1e-12);
    // The other direction: P(X >= 5) = 1 - P(X <= 4) = 1 - P(X >= 16).
    expectRelative(result.p_worse, 1 - fairCoinUpperTail(20, 16), 1e-12);
    expect(result).toMatchObject({ champion_only: 15, challenger_only: 5 });
  });

  it('finds no evidence either way without discordant items', () => {
    expect(exactMcNemar({ champion_only: 0, challenger_only: 0 })).toMatchObject({ p_better: 1, p_worse: 1 });
  });

  it('is mirror-symmetric in its two counts', () => {
    fc.assert(
      fc.property(fc.nat(300), fc.nat(300), (a, b) => {
        const forward = exactMcNemar({ champion_only: a, challenger_only: b });
        const backward = exactMcNemar({ champion_only: b, challenger_only: a });
        expect(forward.p_better).toBe(backward.p_worse);
        expect(forward.p_worse).toBe(backward.p_better);
      }),
    );
  });

  it('refuses negative or fractional counts', () => {
    expect(() => exactMcNemar({ champion_only: -1, challenger_only: 0 })).toThrow(RangeError);
    expect(() => exactMcNemar({ champion_only: 1, challenger_only: 0.5 })).toThrow(RangeError);
  });
});

describe('holmRejects', () => {
  it('holds the smaller p-value to alpha / 2 and then the larger to alpha', () => {
    expect(holmRejects([0.02, 0.04], 0.05)).toEqual([true, true]);
    expect(holmRejects([0.04, 0.02], 0.05)).toEqual([true, true]);
    expect(holmRejects([0.03, 0.04], 0.05)).toEqual([false, false]);
    expect(holmRejects([0.01, 0.2], 0.05)).toEqual([true, false]);
    expect(holmRejects([0.2, 0.01], 0.05)).toEqual([false, true]);
  });

  it('rejects at least whatever Bonferroni rejects, and nothing unless Bonferroni rejects something', () => {
    const p = fc.double({ min: 0, max: 1, noNaN: true });
    fc.assert(
      fc.property(p, p, fc.double({ min: 0.001, max: 0.5, noNaN: true }), (a, b, alpha) => {
        const holm = holmRejects([a, b], alpha);
        const bonferroni = [a <= alpha / 2, b <= alpha / 2];
        expect(holm[0] || !bonferroni[0]).toBe(true);
        expect(holm[1] || !bonferroni[1]).toBe(true);
        expect(holm[0] || holm[1]).toBe(bonferroni[0] || bonferroni[1]);
      }),
    );
  });

  it('refuses an alpha outside (0, 1)', () => {
    expect(() => holmRejects([0.1, 0.1], 0)).toThrow(RangeError);
    expect(() => holmRejects([0.1, 0.1], 1)).toThrow(RangeError);
  });
});
