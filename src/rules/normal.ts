import erfc from '@stdlib/math-base-special-erfc';

/** Standard normal CDF, through the same erfc the reserve check's z-test uses. */
export function normalCdf(x: number): number {
  return 0.5 * erfc(-x / Math.SQRT2);
}

/**
 * Standard normal quantile by bisection on normalCdf: slower than a rational approximation but
 * exact to the CDF's accuracy, plain arithmetic (deterministic in workflow code), and run a
 * handful of times per reserve check.
 */
export function normalQuantile(probability: number): number {
  if (!(probability > 0 && probability < 1)) {
    throw new RangeError(`a normal quantile needs a probability strictly between 0 and 1: got ${probability}`);
  }
  let low = -40;
  let high = 40;
  for (let i = 0; i < 200 && high - low > 1e-15; i++) {
    const middle = (low + high) / 2;
    if (normalCdf(middle) < probability) {
      low = middle;
    } else {
      high = middle;
    }
  }
  return (low + high) / 2;
}
