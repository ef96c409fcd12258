import { ALPHA } from './constants.js';
import { checkAlpha } from './mcnemar.js';
import { normalCdf, normalQuantile } from './normal.js';
import type { RateCounts } from './types.js';

/** The power the reserve check is sized against: the customary 80%. */
const RESERVE_POWER = 0.8;

/** The least rise a reserve check must see to mean anything: one point, when the test rate is lower. */
const TOO_SMALL_FLOOR = 0.01;

/**
 * What a reserve check could see: per error class, the smallest rise of the error rate on reserve
 * over the test rate that its z-test detects with 80% power at its alpha and sizes (a rate
 * difference, e.g. 0.03 = three points), or null when no rise at all would be detected that
 * often. `too_small` when some class cannot see its errors double (a rise of its test rate, taken
 * as at least one point so that a class without test errors is judged too), or cannot see at all.
 */
export interface ReservePower {
  readonly power: number;
  readonly f2p_detectable: number | null;
  readonly p2f_detectable: number | null;
  readonly too_small: boolean;
}

/**
 * Power of the reserve check's one-sided pooled two-proportion z-test (worseZTest) when the true
 * rate on test is `base` and on reserve `base + rise`: the normal approximation, with the
 * rejection threshold set under the pooled null and the spread of the difference under the
 * alternative.
 */
export function worseZTestPower(
  base: number,
  baseTotal: number,
  rise: number,
  newTotal: number,
  alpha: number,
): number {
  checkAlpha(alpha);
  if (baseTotal <= 0 || newTotal <= 0) {
    // worseZTest answers p = 1 without items: it never fails.
    return 0;
  }
  const next = base + rise;
  const pooled = (baseTotal * base + newTotal * next) / (baseTotal + newTotal);
  const nullError = Math.sqrt(pooled * (1 - pooled) * (1 / baseTotal + 1 / newTotal));
  const alternativeError = Math.sqrt((base * (1 - base)) / baseTotal + (next * (1 - next)) / newTotal);
  if (alternativeError === 0) {
    return rise > 0 ? 1 : 0;
  }
  return normalCdf((rise - normalQuantile(1 - alpha) * nullError) / alternativeError);
}

/**
 * The smallest rise of the error rate (0 < rise <= 1 - base) the z-test detects with `power`, by
 * bisection to a millionth; null when even the largest possible rise is detected less often.
 */
export function minimumDetectableRise(
  base: number,
  baseTotal: number,
  newTotal: number,
  alpha: number,
  power: number = RESERVE_POWER,
): number | null {
  if (!(base >= 0 && base <= 1)) {
    throw new RangeError(`a base rate must lie in [0, 1]: got ${base}`);
  }
  const most = 1 - base;
  if (most <= 0 || worseZTestPower(base, baseTotal, most, newTotal, alpha) < power) {
    return null;
  }
  let low = 0;
  let high = most;
  while (high - low > 1e-6) {
    const middle = (low + high) / 2;
    if (worseZTestPower(base, baseTotal, middle, newTotal, alpha) >= power) {
      high = middle;
    } else {
      low = middle;
    }
  }
  // Rounded up to the bisection's precision: a short, stable number that still reaches the power.
  return Math.ceil(high * 1e6) / 1e6;
}

/** The reserve check's power at its sizes: what `reserve_check` rows, `status` and the report show. */
export function reservePower(test: RateCounts, reserve: RateCounts, alpha: number = ALPHA): ReservePower {
  const f2pBase = test.fail_count > 0 ? test.fail_to_pass_count / test.fail_count : 0;
  const p2fBase = test.pass_count > 0 ? test.pass_to_fail_count / test.pass_count : 0;
  const f2p = minimumDetectableRise(f2pBase, test.fail_count, reserve.fail_count, alpha);
  const p2f = minimumDetectableRise(p2fBase, test.pass_count, reserve.pass_count, alpha);
  const blind = (rise: number | null, base: number): boolean => rise === null || rise > Math.max(base, TOO_SMALL_FLOOR);
  return {
    power: RESERVE_POWER,
    f2p_detectable: f2p,
    p2f_detectable: p2f,
    too_small: blind(f2p, f2pBase) || blind(p2f, p2fBase),
  };
}
