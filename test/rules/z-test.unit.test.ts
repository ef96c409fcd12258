import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { worseZTest } from '../../src/rules/z-test.js';

const expectRelative = (actual: number, expected: number, tolerance: number): void => {
  expect(Math.abs(actual - expected) / Math.abs(expected), `${actual} vs ${expected}`).toBeLessThan(tolerance);
};

// Expected values: the Python loop's one-sided two-proportion z-test run with python3 3.11.7
// (`math.erfc`) on this machine; z is bit-identical (same IEEE operations), p agrees to the accuracy of erfc.
const cases: readonly (readonly [number, number, number, number, number, number])[] = [
  [9, 188, 20, 188, 2.1262918339523074, 0.016739483787513408],
  [20, 188, 9, 188, -2.1262918339523074, 0.9832605162124866],
  [3, 120, 11, 95, 2.679446608231013, 0.0036871981380671905],
  [12, 300, 1, 310, -3.144059147303484, 0.9991668912089104],
  [0, 188, 1, 188, 1.001332445627658, 0.15833305589627217],
];

describe('worseZTest', () => {
  it('reproduces the Python loop on known cases', () => {
    for (const [h1, n1, h2, n2, z, p] of cases) {
      const result = worseZTest(h1, n1, h2, n2);
      expect(result.z).toBe(z);
      expectRelative(result.p, p, 1e-14);
    }
  });

  it('gives a small p-value when the new rate is higher', () => {
    const { z, p } = worseZTest(9, 188, 20, 188);
    expect(z).toBeGreaterThan(0);
    expect(p).toBeLessThan(0.5);
  });

  it('gives z = 0 and p = 1 when both rates are 0 or both are 1', () => {
    expect(worseZTest(0, 50, 0, 60)).toEqual({ z: 0, p: 1 });
    expect(worseZTest(50, 50, 60, 60)).toEqual({ z: 0, p: 1 });
  });

  it('gives z = 0 and p = one half for equal rates that are neither 0 nor 1', () => {
    expect(worseZTest(9, 188, 9, 188)).toEqual({ z: 0, p: 0.5 });
  });

  it('gives z = 0 and p = 1 when either total is 0, as for a pooled standard error of 0', () => {
    expect(worseZTest(0, 0, 1, 10)).toEqual({ z: 0, p: 1 });
    expect(worseZTest(1, 10, 0, 0)).toEqual({ z: 0, p: 1 });
    expect(worseZTest(0, 0, 0, 0)).toEqual({ z: 0, p: 1 });
    expect(worseZTest(0, 0, 10, 10)).toEqual({ z: 0, p: 1 });
  });

  it('refuses hits outside the total, an empty total included', () => {
    expect(() => worseZTest(1, 0, 1, 10)).toThrow(RangeError);
    expect(() => worseZTest(1, 10, 1, 0)).toThrow(RangeError);
    expect(() => worseZTest(11, 10, 1, 10)).toThrow(RangeError);
    expect(() => worseZTest(1, 10, -1, 10)).toThrow(RangeError);
    expect(() => worseZTest(0, -1, 1, 10)).toThrow(RangeError);
    expect(() => worseZTest(0, Number.NaN, 1, 10)).toThrow(RangeError);
  });

  const proportion = fc
    .integer({ min: 1, max: 500 })
    .chain((total) => fc.tuple(fc.nat({ max: total }), fc.constant(total)));

  it('gives p-values in [0, 1] whose two directions sum to 1 unless both rates are degenerate', () => {
    fc.assert(
      fc.property(proportion, proportion, ([h1, n1], [h2, n2]) => {
        const forward = worseZTest(h1, n1, h2, n2);
        const backward = worseZTest(h2, n2, h1, n1);
        expect(forward.p).toBeGreaterThanOrEqual(0);
        expect(forward.p).toBeLessThanOrEqual(1);
        expect(backward.z).toBe(forward.z === 0 ? 0 : -forward.z);
        if (forward.z !== 0 || forward.p !== 1) {
          expect(Math.abs(forward.p + backward.p - 1)).toBeLessThan(1e-15);
        }
      }),
    );
  });

  it('gives a p-value no larger when the new set has more hits', () => {
    fc.assert(
      fc.property(proportion, proportion, ([h1, n1], [h2, n2]) => {
        fc.pre(h2 < n2);
        const lower = worseZTest(h1, n1, h2, n2);
        const higher = worseZTest(h1, n1, h2 + 1, n2);
        expect(higher.z).toBeGreaterThanOrEqual(lower.z);
        // A degenerate pool (all hits or none) has no evidence and answers p = 1 on either side.
        const degenerate = (t: { z: number; p: number }): boolean => t.z === 0 && t.p === 1;
        if (!degenerate(lower) && !degenerate(higher)) {
          expect(higher.p).toBeLessThanOrEqual(lower.p);
        }
      }),
    );
  });
});
