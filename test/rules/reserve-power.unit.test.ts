import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { normalCdf, normalQuantile } from '../../src/rules/normal.js';
import { minimumDetectableRise, reservePower, worseZTestPower } from '../../src/rules/reserve-power.js';
import type { RateCounts } from '../../src/rules/types.js';

// Expected: scipy 1.17.1 on this machine, the same normal-approximation power of the pooled
// one-sided z-test written independently (norm.cdf, norm.ppf) and solved for power 0.8 with
// scipy.optimize.brentq (xtol 1e-14).
const detectable: readonly (readonly [base: number, n1: number, n2: number, alpha: number, rise: number])[] = [
  [0.05, 188, 188, 0.01, 0.09702985928048159],
  [0.1, 1000, 1000, 0.01, 0.04654485553762715],
  [0.02, 2000, 500, 0.01, 0.026637993031930273],
  [0.3, 50, 40, 0.05, 0.2575853325868163],
  [0, 500, 500, 0.01, 0.019820197668271977],
];

describe('normal', () => {
  it('matches scipy at known points', () => {
    expect(normalQuantile(0.99)).toBeCloseTo(2.3263478740408408, 12);
    expect(normalQuantile(0.8)).toBeCloseTo(0.8416212335729143, 12);
    expect(normalCdf(1.5)).toBeCloseTo(0.9331927987311419, 14);
  });

  it('inverts: cdf(quantile(p)) = p', () => {
    fc.assert(
      fc.property(fc.double({ min: 1e-9, max: 1 - 1e-9, noNaN: true }), (p) => {
        expect(normalCdf(normalQuantile(p))).toBeCloseTo(p, 12);
      }),
    );
  });
});

describe('minimumDetectableRise', () => {
  it('matches an independent scipy solution to a millionth', () => {
    for (const [base, n1, n2, alpha, rise] of detectable) {
      expect(Math.abs(minimumDetectableRise(base, n1, n2, alpha)! - rise)).toBeLessThanOrEqual(2e-6);
    }
  });

  it('is null when no rise is detected four times in five', () => {
    expect(minimumDetectableRise(0.5, 3, 2, 0.01)).toBeNull();
    expect(minimumDetectableRise(0.2, 100, 0, 0.01)).toBeNull();
  });

  it('shrinks as the reserve grows', () => {
    fc.assert(
      fc.property(
        fc.double({ min: 0.01, max: 0.4, noNaN: true }),
        fc.integer({ min: 50, max: 3000 }),
        fc.integer({ min: 20, max: 2000 }),
        (base, n1, n2) => {
          const small = minimumDetectableRise(base, n1, n2, 0.01);
          const large = minimumDetectableRise(base, n1, n2 * 2, 0.01);
          if (small !== null) {
            expect(large).not.toBeNull();
            expect(large!).toBeLessThanOrEqual(small + 1e-6);
          }
        },
      ),
    );
  });

  it('finds the rise where power reaches 80%', () => {
    const rise = minimumDetectableRise(0.1, 400, 300, 0.01)!;
    expect(worseZTestPower(0.1, 400, rise, 300, 0.01)).toBeGreaterThanOrEqual(0.8);
    expect(worseZTestPower(0.1, 400, rise - 1e-5, 300, 0.01)).toBeLessThan(0.8);
  });
});

describe('reservePower', () => {
  const rates = (f2p: number, fails: number, p2f: number, passes: number): RateCounts => ({
    fail_to_pass_count: f2p,
    fail_count: fails,
    pass_to_fail_count: p2f,
    pass_count: passes,
  });

  it('reports both classes at the test rates and sizes, alpha 0.01 by default', () => {
    const power = reservePower(rates(50, 1000, 100, 1000), rates(60, 1000, 90, 1000));
    expect(power.f2p_detectable).toBeCloseTo(minimumDetectableRise(0.05, 1000, 1000, 0.01)!, 9);
    expect(Math.abs(power.p2f_detectable! - 0.04654485553762715)).toBeLessThanOrEqual(2e-6);
    expect(power.power).toBe(0.8);
    expect(power.too_small).toBe(false);
  });

  it('says a reserve is too small when a class cannot see its errors double', () => {
    // 9 of 188 on test (4.8%): 188 reserve items see only rises of about 9.7 points.
    expect(reservePower(rates(9, 188, 20, 400), rates(9, 188, 20, 400)).too_small).toBe(true);
    expect(reservePower(rates(9, 188, 20, 400), rates(0, 0, 20, 400))).toMatchObject({
      f2p_detectable: null,
      too_small: true,
    });
  });
});
