import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { seededRandom } from '../../bench/selection/random.js';
import { discordant, runRule, type Evaluation, type RuleSettings } from '../../bench/selection/rules.js';
import { simulateGeneration, type SimulationOptions } from '../../bench/selection/simulate.js';
import { aim, estimate, summarize } from '../../bench/selection/summary.js';
import { abilityFor, drawSet, errorCount, score, trueRate } from '../../bench/selection/world.js';

const small: SimulationOptions = {
  seeds: 3,
  firstSeed: 1,
  testItems: 400,
  validationItems: 400,
  reserveItems: 400,
  failFraction: 0.3,
  evaluations: 40,
  f2pRate: 0.1,
  p2fRate: 0.05,
  spread: 0.15,
  difficulty: 1.5,
  alpha: 0.05,
  ladderMargin: 0.01,
  threshold: 0.01,
  sigma: 0.005,
  confirmationItems: 100,
  budgetReads: 20,
};

const evaluation = (f2p: number[], p2f: number[]): Evaluation => ({
  test: { fail_to_pass_count: f2p.reduce((a, b) => a + b, 0), pass_to_fail_count: p2f.reduce((a, b) => a + b, 0) },
  testF2p: Uint8Array.from(f2p),
  testP2f: Uint8Array.from(p2f),
  validationF2pRate: 0,
  validationP2fRate: 0,
  confirmation: { f2p: Uint8Array.from(f2p), p2f: Uint8Array.from(p2f) },
});
const ones = (n: number, of: number): number[] => Array.from({ length: of }, (_, i) => (i < n ? 1 : 0));
const settings: RuleSettings = {
  alpha: 0.05,
  ladderMargin: 2,
  threshold: 0.01,
  sigma: 0.005,
  failItems: 10,
  passItems: 10,
  confirmationItems: 20,
  budgetReads: 100,
};

describe('the synthetic world', () => {
  it('gives a candidate the true rate it was drawn for', () => {
    for (const rate of [0.02, 0.1, 0.3]) {
      expect(trueRate(abilityFor(rate, 1.5), 1.5)).toBeCloseTo(rate, 9);
    }
  });

  it('scores items at the true rate on average (Monte Carlo, 200,000 items)', () => {
    const random = seededRandom(7);
    const set = drawSet(random, 200_000, 0.5);
    const ability = abilityFor(0.1, 1.5);
    const scored = score(
      random,
      set,
      { f2pAbility: ability, p2fAbility: ability, trueF2pRate: 0.1, trueP2fRate: 0.1 },
      1.5,
    );
    // 100,000 items: a standard error of 0.00095.
    expect(errorCount(scored.f2p) / 100_000).toBeCloseTo(0.1, 2);
  });

  it('makes candidates err on the same hard items (outcomes correlate)', () => {
    const random = seededRandom(3);
    const set = drawSet(random, 20_000, 0.5);
    const ability = abilityFor(0.1, 1.5);
    const candidate = { f2pAbility: ability, p2fAbility: ability, trueF2pRate: 0.1, trueP2fRate: 0.1 };
    const a = score(random, set, candidate, 1.5).f2p;
    const b = score(random, set, candidate, 1.5).f2p;
    const both = a.reduce((sum, value, i) => sum + (value & (b[i] as number)), 0) / a.length;
    // Independent errors would coincide on 1% of items.
    expect(both).toBeGreaterThan(0.02);
  });
});

describe('the rules as the simulation runs them', () => {
  it('counts discordant items both ways', () => {
    expect(discordant(Uint8Array.from([1, 1, 0, 0, 1]), Uint8Array.from([0, 1, 1, 0, 0]))).toEqual({
      champion_only: 2,
      challenger_only: 1,
    });
  });

  it('lets dominance promote a one-item gain that paired and ladder refuse', () => {
    // Recorded by the Ladder (step 2) as 4 and 0: a step is 2 items, the gain is 1.
    const first = evaluation([1, 1, 1, 1, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const second = evaluation([1, 1, 1, 0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
    const random = seededRandom(1);
    expect(runRule('dominance', [first, second], settings, random)).toMatchObject({ champion: 1, promotions: 1 });
    expect(runRule('paired', [first, second], settings, random)).toMatchObject({ champion: 0, promotions: 0 });
    expect(runRule('ladder', [first, second], settings, random)).toMatchObject({ champion: 0, promotions: 0 });
  });

  it('lets paired promote a gain on many discordant items', () => {
    const first = evaluation(ones(12, 20), ones(0, 20));
    const second = evaluation(ones(2, 20), ones(0, 20));
    const run = runRule('paired', [first, second], { ...settings, failItems: 20, passItems: 20 }, seededRandom(1));
    expect(run).toMatchObject({ champion: 1, promotions: 1 });
  });

  it('lists the champions in turn, the first evaluation first', () => {
    const runs = [
      evaluation(ones(6, 10), ones(0, 10)),
      evaluation(ones(4, 10), ones(0, 10)),
      evaluation(ones(5, 10), ones(0, 10)),
      evaluation(ones(2, 10), ones(0, 10)),
    ];
    expect(runRule('dominance', runs, settings, seededRandom(1))).toMatchObject({
      champions: [0, 1, 3],
      champion: 3,
      promotions: 2,
    });
  });

  it('paired-validated refuses a paired promotion the validation rates disagree with', () => {
    const wide = { ...settings, failItems: 20, passItems: 20 };
    const first = { ...evaluation(ones(12, 20), ones(0, 20)), validationF2pRate: 0.1 };
    const second = { ...evaluation(ones(2, 20), ones(0, 20)), validationF2pRate: 0.1 };
    expect(runRule('paired-validated', [first, second], wide, seededRandom(1)).champion).toBe(1);
    const worseOnValidation = { ...second, validationF2pRate: 0.11 };
    expect(runRule('paired-validated', [first, worseOnValidation], wide, seededRandom(1)).champion).toBe(0);
    expect(runRule('paired', [first, worseOnValidation], wide, seededRandom(1)).champion).toBe(1);
  });

  it('alpha-spending holds each later promotion to half the alpha of the one before', () => {
    // Holm over two classes tests the smaller p at half the alpha it is given. 30 -> 24 errors: 6
    // discordant items all one way, p = 1/64 = 0.0156; 24 -> 16: p = 1/256 = 0.0039.
    const wide = { ...settings, failItems: 40, passItems: 40 };
    const runs = [
      evaluation(ones(30, 40), ones(0, 40)),
      evaluation(ones(24, 40), ones(0, 40)),
      evaluation(ones(16, 40), ones(0, 40)),
    ];
    expect(runRule('paired', runs, { ...wide, alpha: 0.07 }, seededRandom(1)).champions).toEqual([0, 1, 2]);
    // At alpha 0.07 the first promotion gets 0.035 (Holm: 0.0175, passes 0.0156), the second 0.0175
    // (Holm: 0.00875, passes 0.0039); at 0.05 the first gets 0.025 (Holm: 0.0125, refuses 0.0156),
    // and the third evaluation (14 items one way against the first) passes it.
    expect(runRule('alpha-spending', runs, { ...wide, alpha: 0.07 }, seededRandom(1)).champions).toEqual([0, 1, 2]);
    expect(runRule('alpha-spending', runs, { ...wide, alpha: 0.05 }, seededRandom(1)).champions).toEqual([0, 2]);
  });

  it('confirmed needs fewer errors on the confirmation set as well as dominance on the test set', () => {
    const first = evaluation(ones(4, 10), ones(0, 10));
    const better = evaluation(ones(2, 10), ones(0, 10));
    expect(runRule('confirmed', [first, better], settings, seededRandom(1)).champion).toBe(1);
    const unconfirmed = { ...better, confirmation: first.confirmation };
    expect(runRule('confirmed', [first, unconfirmed], settings, seededRandom(1)).champion).toBe(0);
    expect(runRule('dominance', [first, unconfirmed], settings, seededRandom(1)).champion).toBe(1);
  });

  it("ladder-growing holds later reads to a larger margin than the plain Ladder's", () => {
    // Margin 2 items; by the 10th read sqrt(ln 10) = 1.52 makes it ceil(3.03) = 4 items. The first
    // champion's 9 errors are recorded as 10 (rounded to the step): 7 is 3 better, enough for a step
    // of 2, not of 4.
    const filler = Array.from({ length: 8 }, () => evaluation(ones(9, 10).concat(ones(0, 10)), ones(0, 20)));
    const wide = { ...settings, failItems: 20, passItems: 20 };
    const runs = [evaluation(ones(9, 20), ones(0, 20)), ...filler, evaluation(ones(7, 20), ones(0, 20))];
    expect(runRule('ladder', runs, wide, seededRandom(1)).champion).toBe(9);
    expect(runRule('ladder-growing', runs, wide, seededRandom(1)).champion).toBe(0);
  });

  it('budget judges only the reads within it, as test_budget with when_spent: freeze', () => {
    const runs = [
      evaluation(ones(6, 10), ones(0, 10)),
      evaluation(ones(4, 10), ones(0, 10)),
      evaluation(ones(2, 10), ones(0, 10)),
    ];
    expect(runRule('budget', runs, { ...settings, budgetReads: 2 }, seededRandom(1)).champions).toEqual([0, 1]);
    expect(runRule('budget', runs, { ...settings, budgetReads: 3 }, seededRandom(1)).champions).toEqual([0, 1, 2]);
  });

  it('refuses a generation without evaluations', () => {
    expect(() => runRule('dominance', [], settings, seededRandom(1))).toThrow(RangeError);
  });
});

describe('simulateGeneration', () => {
  it('is the same for the same seed and differs between seeds', () => {
    expect(simulateGeneration(5, small)).toEqual(simulateGeneration(5, small));
    expect(simulateGeneration(5, small)).not.toEqual(simulateGeneration(6, small));
  });

  it('never reports a negative regret, and dominance is flattered on average', () => {
    const results = [1, 2, 3, 4, 5, 6].map((seed) => simulateGeneration(seed, small));
    for (const result of results) {
      for (const outcome of Object.values(result.outcomes)) {
        expect(outcome.regret).toBeGreaterThanOrEqual(0);
      }
    }
    expect(summarize(results).dominance.optimism.mean).toBeGreaterThan(0);
  });

  it('counts a promotion false when the new champion is not truly better, never more than the promotions', () => {
    const results = [1, 2, 3, 4, 5, 6].map((seed) => simulateGeneration(seed, small));
    const outcomes = results.flatMap((result) => [...Object.values(result.outcomes), ...Object.values(result.curve)]);
    for (const outcome of outcomes) {
      expect(outcome.falsePromotions).toBeGreaterThanOrEqual(0);
      expect(outcome.falsePromotions).toBeLessThanOrEqual(outcome.promotions);
    }
    // Dominance on 40 noisy evaluations promotes by luck somewhere in six generations.
    expect(results.some((result) => result.outcomes.dominance.falsePromotions > 0)).toBe(true);
    expect(Object.keys(results[0]?.curve ?? {})).toContain('budget budgetReads=10');
  });
});

describe('summary', () => {
  it('estimates a mean with a 95% interval', () => {
    const { mean, ci95 } = estimate([1, 2, 3, 4]);
    expect(mean).toBe(2.5);
    // sd = 1.2910; 1.96 * sd / 2.
    expect(ci95).toBeCloseTo(1.2652, 4);
  });

  it('meets the aim only with half the optimism, a third of the promotions and regret within 10%', () => {
    const e = (mean: number): { mean: number; ci95: number } => ({ mean, ci95: 0 });
    const base = {
      optimism: e(1),
      reportedOptimism: e(1),
      promotions: e(3),
      falsePromotions: e(1),
      regret: e(0.5),
      reserveFailed: e(0),
    };
    expect(aim({ ...base, optimism: e(0.5), promotions: e(1), regret: e(0.55) }, base).met).toBe(true);
    expect(aim({ ...base, optimism: e(0.51), promotions: e(1), regret: e(0.5) }, base).halfOptimism).toBe(false);
    expect(aim({ ...base, optimism: e(0.5), promotions: e(1.1), regret: e(0.5) }, base).thirdPromotions).toBe(false);
    expect(aim({ ...base, optimism: e(0.5), promotions: e(1), regret: e(0.56) }, base).regretWithin10).toBe(false);
  });

  it('keeps seeds apart: a property over seeds', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 1e6 }), (seed) => {
        const random = seededRandom(seed);
        const draws = Array.from({ length: 5 }, () => random.uniform());
        expect(draws.every((draw) => draw >= 0 && draw < 1)).toBe(true);
      }),
      { numRuns: 50 },
    );
  });
});

describe('the selection page', () => {
  it('plots one point per rule on a self-contained page', async () => {
    const { selectionPage } = await import('../../src/client/report/selection-plot.js');
    const page = selectionPage(
      [
        { rule: 'dominance', promotions: 2.77, optimism: 0.0084, regret: 0.0046, reserveFailed: 0.1 },
        { rule: 'paired', promotions: 0.87, optimism: 0.0063, regret: 0.0072, reserveFailed: 0.055 },
      ],
      '200 generations <of> 300',
    );
    // Two panels (optimism, promotions), each with one point per rule.
    expect((page.match(/<circle class="point"/g) ?? []).length).toBe(4);
    expect(page).toContain('true regret 0.72 pts');
    expect(page).toContain('200 generations &lt;of&gt; 300');
    expect(page).not.toMatch(/https?:|<script|src=/i);
  });

  it('draws a tunable rule as a line through its settings, labelled at both ends', async () => {
    const { selectionPage } = await import('../../src/client/report/selection-plot.js');
    const at = (setting: string, regret: number) => ({
      rule: 'budget',
      setting,
      promotions: 1,
      optimism: 0.005,
      regret,
      reserveFailed: 0,
      falsePromotions: 0.2,
    });
    const page = selectionPage([], 'world', [
      { rule: 'budget', points: [at('budgetReads=10', 0.01), at('budgetReads=200', 0.005)] },
    ]);
    expect((page.match(/<polyline /g) ?? []).length).toBe(2);
    expect((page.match(/<circle class="curve-point"/g) ?? []).length).toBe(4);
    expect(page).toContain('>budget budgetReads=200</text>');
    expect(page).toContain('(0.20 false)');
  });
});
