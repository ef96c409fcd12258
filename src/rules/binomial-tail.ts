/**
 * Upper tail of a fair-coin binomial, P(X >= k) for X ~ Binomial(n, 1/2): the exact null
 * distribution of McNemar's test on n discordant items.
 *
 * Summed in log space from the recurrence log pmf(j+1) = log pmf(j) + log((n - j) / (j + 1)),
 * because 2^-n underflows from n = 1,075 on while test sets run to thousands of items. The
 * relative error grows like n times machine epsilon (about 1e-12 at n = 10,000).
 */
export function fairCoinUpperTail(n: number, k: number): number {
  if (!Number.isInteger(n) || n < 0 || !Number.isInteger(k)) {
    throw new RangeError(`fairCoinUpperTail needs whole numbers, n >= 0: got n=${n} k=${k}`);
  }
  if (k <= 0) {
    return 1;
  }
  if (k > n) {
    return 0;
  }
  // Log pmf of every j from k to n; the largest term anchors the sum so none underflows.
  let logPmf = -n * Math.LN2;
  for (let j = 0; j < k; j++) {
    logPmf += Math.log((n - j) / (j + 1));
  }
  const logs: number[] = [];
  for (let j = k; j <= n; j++) {
    logs.push(logPmf);
    logPmf += Math.log((n - j) / (j + 1));
  }
  const top = Math.max(...logs);
  let sum = 0;
  for (const value of logs) {
    sum += Math.exp(value - top);
  }
  return Math.min(1, Math.exp(top) * sum);
}
