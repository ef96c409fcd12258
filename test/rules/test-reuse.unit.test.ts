import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { renderStatus, renderStoppedState } from '../../src/client/render-status.js';
import { countOptimism, describeTestReuse, testBudgetView, testReuse } from '../../src/rules/test-reuse.js';
import type { HeldoutResult } from '../../src/rules/types.js';
import type { LoopView } from '../../src/workflows/loop-view.js';
import { seededRandom } from '../../bench/lib/durations.js';

const result: HeldoutResult = {
  fail_to_pass_count: 12,
  fail_count: 400,
  fail_to_pass_rate: 0.03,
  pass_to_fail_count: 30,
  pass_count: 1600,
  pass_to_fail_rate: 30 / 1600,
  pass_correct_count: 1570,
  macro_f1: 0.95,
  s_f1: 0.95,
};

/** One binomial draw, as many Bernoulli trials. */
function binomial(random: () => number, items: number, rate: number): number {
  let count = 0;
  for (let i = 0; i < items; i++) if (random() < rate) count++;
  return count;
}

describe('countOptimism', () => {
  it('is 0 for one read (nothing was selected) and grows with the reads and the count', () => {
    expect(countOptimism(1, 12, 400)).toBe(0);
    expect(countOptimism(0, 12, 400)).toBe(0);
    expect(countOptimism(10, 12, 400)).toBeGreaterThan(0);
    // sqrt(2 ln 300) standard deviations of the binomial whose mean the count sits that far below.
    const optimism = countOptimism(300, 12, 400);
    const mean = 12 + optimism;
    expect(optimism).toBeCloseTo(Math.sqrt(2 * Math.log(300)) * Math.sqrt(mean * (1 - mean / 400)), 6);
    // A count of 0 still has a spread: about 2 ln(reads) errors.
    expect(countOptimism(300, 0, 400)).toBeGreaterThan(2 * Math.log(300) * 0.95);
  });

  it('is monotone in the reads, and never negative (property)', () => {
    fc.assert(
      fc.property(fc.nat(10_000), fc.nat(10_000), fc.integer({ min: 1, max: 100_000 }), (reads, count, items) => {
        const bounded = Math.min(count, items);
        const here = countOptimism(reads, bounded, items);
        expect(here).toBeGreaterThanOrEqual(0);
        expect(countOptimism(reads + 1, bounded, items)).toBeGreaterThanOrEqual(here);
      }),
    );
  });

  it('settles where the count is close to the items, more reads giving more (fast-check found 8,419 reads, 2 of 8)', () => {
    const here = countOptimism(8419, 2, 8);
    const mean = 2 + here;
    expect(here).toBeCloseTo(Math.sqrt(2 * Math.log(8419)) * Math.sqrt(mean * (1 - mean / 8)), 6);
    expect(countOptimism(8420, 2, 8)).toBeGreaterThanOrEqual(here);
  });

  it.each([
    { reads: 300, items: 400, rate: 0.05, tight: true },
    { reads: 20, items: 2000, rate: 0.02, tight: true },
    // A mean of one error: the best is 0 nearly always, and a count of 0 says little of the mean
    // behind it (a mean near ln(1000) = 6.9 also gives a 0 among 1000): there it is loose.
    { reads: 1000, items: 100, rate: 0.01, tight: false },
  ])(
    'bounds the optimism the best of $reads equally good models shows on $items items at rate $rate (simulated; within 2x: $tight)',
    ({ reads, items, rate, tight }) => {
      // Models of one true error rate, each with its own binomial noise on the test set: the best
      // count's shortfall below the true mean, averaged over 200 trials.
      const random = seededRandom(30);
      const trials = 200;
      let shortfall = 0;
      let bound = 0;
      for (let trial = 0; trial < trials; trial++) {
        let best = Infinity;
        for (let read = 0; read < reads; read++) best = Math.min(best, binomial(random, items, rate));
        shortfall += items * rate - best;
        bound += countOptimism(reads, best, items);
      }
      shortfall /= trials;
      bound /= trials;
      console.log(`best of ${reads}: ${shortfall.toFixed(2)} errors below the mean; estimate ${bound.toFixed(2)}`);
      expect(bound).toBeGreaterThanOrEqual(shortfall);
      if (tight) expect(bound).toBeLessThan(2 * shortfall);
    },
  );
});

describe('testReuse in status', () => {
  const champion = {
    run_id: 'g001-r0001-a-s1',
    candidate: 'a',
    epoch: 3,
    checkpoint_name: 'checkpoint-0003.pt',
    checkpoint: '/runs/g001-r0001-a-s1/checkpoint-0003.pt',
    config_path: '/state/configs/a.yaml',
    eval_json: '/state/evals/a.json',
    result,
  };

  it('is absent without a champion or its counts', () => {
    expect(testReuse(40, null)).toBeNull();
    expect(testReuse(40, { result: null })).toBeNull();
  });

  it("names the reads and each count's estimate, rounded to a tenth", () => {
    const reuse = testReuse(240, champion);
    expect(reuse).toEqual({
      reads: 240,
      fail_to_pass: { count: 12, items: 400, optimism: Math.round(countOptimism(240, 12, 400) * 10) / 10 },
      pass_to_fail: { count: 30, items: 1600, optimism: Math.round(countOptimism(240, 30, 1600) * 10) / 10 },
    });
    expect(describeTestReuse(reuse!)).toBe(
      `test set reuse: 240 reads this generation; the champion's 12 Fail->Pass of 400 and 30 Pass->Fail of 1600 may be optimistic by selection alone by up to about ${reuse!.fail_to_pass.optimism} and ${reuse!.pass_to_fail.optimism} (docs/behaviour.md, "Test-set reuse")`,
    );
  });

  it('shows in status of a running loop and of a stopped one', () => {
    const state = {
      generation: 1,
      split: '/state/splits/gen-001.yaml',
      champion,
      pareto_set: [champion],
      test_evals: 240,
      tests_since_reserve_check: 240,
      reserve_checks: 0,
      advance_reason: null,
      updated: '2026-12-02T00:00:00Z',
    };
    const view: LoopView = {
      ...state,
      loop_id: 'reuse',
      round: 3,
      stopping: false,
      split_ready: true,
      queued: 0,
      in_flight: [],
      lanes: [],
      candidates: ['a'],
      candidates_error: null,
      split_error: null,
      idle: false,
    };
    const line = describeTestReuse(testReuse(240, champion)!);
    expect(renderStatus(view).split('\n')).toContain(line);
    expect(renderStoppedState(state).split('\n')).toContain(line);
    expect(renderStatus({ ...view, champion: null })).not.toMatch(/test set reuse/);
    expect(renderStatus(view)).not.toMatch(/test budget/);
    const budgeted = { ...view, test_budget: testBudgetView(240, { reads: 300, when_spent: 'freeze' }) };
    expect(renderStatus(budgeted).split('\n')).toContain(
      'test budget: 60 of 300 reads left; when spent, no promotion until the next generation',
    );
    const spent = { ...view, test_budget: testBudgetView(240, { reads: 200, when_spent: 'freeze' }) };
    expect(spent.test_budget.left).toBe(0);
    expect(renderStatus(spent).split('\n')).toContain(
      'test budget: spent (200 reads): no promotion until the next generation',
    );
  });
});
