// stdlib's erfc (FreeBSD's msun port): plain JavaScript with no Node built-ins, so it bundles
// into workflow code.
import erfc from '@stdlib/math-base-special-erfc';

/** A z statistic and its one-sided p-value. */
export interface ZTest {
  readonly z: number;
  readonly p: number;
}

/**
 * One-sided two-proportion z-test that the new rate (hits/total) is higher than the base rate.
 * A total of 0 (no item of that kind, e.g. all inside a reject band) is no evidence either way:
 * z = 0 and p = 1, as when the pooled standard error is 0 (docs/behaviour.md, 2.5).
 */
export function worseZTest(baseHits: number, baseTotal: number, newHits: number, newTotal: number): ZTest {
  checkProportion(baseHits, baseTotal);
  checkProportion(newHits, newTotal);
  if (baseTotal === 0 || newTotal === 0) {
    return { z: 0, p: 1 };
  }
  const pooled = (baseHits + newHits) / (baseTotal + newTotal);
  const error = Math.sqrt(pooled * (1 - pooled) * (1 / baseTotal + 1 / newTotal));
  // Both rates 0 or both 1: no evidence either way.
  if (error === 0) {
    return { z: 0, p: 1 };
  }
  const z = (newHits / newTotal - baseHits / baseTotal) / error;
  return { z, p: 0.5 * erfc(z / Math.SQRT2) };
}

function checkProportion(hits: number, total: number): void {
  // Hits outside [0, total] (or a negative total) would give NaN silently.
  if (!(total >= 0) || !(hits >= 0) || !(hits <= total)) {
    throw new RangeError(`not a proportion: ${hits} hits of ${total}`);
  }
}
