import type { HeldoutResult } from './types.js';

// How much a generation has read its working test set, and how optimistic that makes the best
// score on it (issue 30, first part; docs/behaviour.md, "Test-set reuse"). Pure: status computes it
// from the view (test_evals and the champion's counts), so no row or history changes.

/** The optimism estimate of one error count: the champion's count, and how far below its true expectation selection alone may have put it. */
interface CountOptimism {
  readonly count: number;
  readonly items: number;
  readonly optimism: number;
}

/** The test set's reads this generation and what they may have cost in optimism. */
export interface TestReuse {
  /** Checkpoints and ensembles scored on the test set this generation (state.json `test_evals`). */
  readonly reads: number;
  readonly fail_to_pass: CountOptimism;
  readonly pass_to_fail: CountOptimism;
}

/**
 * The expected maximum of `reads` independent standard normals is at most k = sqrt(2 ln reads)
 * (the Gaussian maximal inequality). A champion picked as the best of `reads` scores of one error
 * count (binomial over `items` test items, mean m) is then expected to sit at most k standard
 * deviations, k * sqrt(m (1 - m / items)), below m by selection alone. m is not known: the
 * champion's count is itself the optimistic draw, and a spread read from it comes out too small
 * (a simulation of 300 equal models put the best 11.4 errors below the mean where that reading
 * said 10.3). So m is the mean the count is k deviations below: the fixed point of
 * m = count + k * sqrt(m (1 - m / items)), and the estimate m - count. Checkpoints of one run are
 * correlated and rarely equally good, which only makes the true optimism smaller: an upper
 * estimate, not a measurement. Simulated (test/rules/test-reuse.unit.test.ts) it is 1.4x the true
 * shortfall for counts of 10 or more; near 0 it is loose (a count of 0 among 1000 reads of 100
 * items gives about 12 where a mean of 1 gave 1), as a count cannot go below 0.
 */
export function countOptimism(reads: number, count: number, items: number): number {
  if (reads <= 1 || items <= 0) return 0;
  const k = Math.sqrt(2 * Math.log(reads));
  // m - count - k * sqrt(m (1 - m / items)) is convex in m, at most 0 at the count (or just above
  // 0) and at least 0 at `items`: one root between, found by halving. Iterating m = count + k *
  // sqrt(...) instead did not settle near `items` (reads 8419, count 2 of 8 still moved after 200
  // steps, and gave less for more reads).
  const below = (mean: number) => mean - count - k * Math.sqrt(mean * (1 - mean / items)) < 0;
  let low = Math.max(count, Number.MIN_VALUE);
  let high = items;
  if (!below(low)) return 0;
  for (let step = 0; step < 200 && high - low > 1e-12 * items; step++) {
    const middle = (low + high) / 2;
    if (below(middle)) low = middle;
    else high = middle;
  }
  return high - count;
}

export function testReuse(reads: number, champion: { readonly result: HeldoutResult | null } | null): TestReuse | null {
  const result = champion?.result;
  if (!result) return null;
  const one = (count: number, items: number): CountOptimism => ({
    count,
    items,
    optimism: Math.round(countOptimism(reads, count, items) * 10) / 10,
  });
  return {
    reads,
    fail_to_pass: one(result.fail_to_pass_count, result.fail_count),
    pass_to_fail: one(result.pass_to_fail_count, result.pass_count),
  };
}

/** The reads and what they may have cost, for the Web UI's details and the report (Markdown or HTML text). */
export function describeReuseShort(reuse: TestReuse): string {
  return (
    `${reuse.reads} read${reuse.reads === 1 ? '' : 's'}; the champion's counts may be optimistic by selection alone ` +
    `by up to about ${reuse.fail_to_pass.optimism} (Fail→Pass) and ${reuse.pass_to_fail.optimism} (Pass→Fail)`
  );
}

/** One line for `status`: the reads, and what they may have cost. */
export function describeTestReuse(reuse: TestReuse): string {
  const { reads, fail_to_pass: f2p, pass_to_fail: p2f } = reuse;
  return (
    `test set reuse: ${reads} reads this generation; the champion's ${f2p.count} Fail->Pass of ${f2p.items} and ` +
    `${p2f.count} Pass->Fail of ${p2f.items} may be optimistic by selection alone by up to about ` +
    `${f2p.optimism} and ${p2f.optimism} (docs/behaviour.md, "Test-set reuse")`
  );
}

/** loop.yaml `test_budget` as a running loop shows it: the reads allowed, what spending them does, and how many are left. */
export interface TestBudgetView {
  readonly reads: number;
  readonly when_spent: 'freeze' | 'advance';
  readonly left: number;
}

/** The budget's view after `reads` test-set reads this generation. */
export function testBudgetView(
  reads: number,
  budget: { readonly reads: number; readonly when_spent: 'freeze' | 'advance' },
): TestBudgetView {
  return { reads: budget.reads, when_spent: budget.when_spent, left: Math.max(0, budget.reads - reads) };
}

/** What `status` and the Web UI say after "test budget:": what is left of it, or what its spending did. */
export function describeTestBudget(budget: TestBudgetView): string {
  const then =
    budget.when_spent === 'freeze'
      ? 'no promotion until the next generation'
      : 'the generation advances (test_budget_spent)';
  return budget.left > 0
    ? `${budget.left} of ${budget.reads} reads left; when spent, ${then}`
    : `spent (${budget.reads} reads): ${then}`;
}
