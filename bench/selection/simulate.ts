// One generation of the selection simulation, and many: draws a world from a seed, scores every
// candidate once, runs each champion rule over the same evaluations, and measures what each let
// through. The reserve check is the loop's own (reserveVerdict at its alpha).
import { ALPHA } from '../../src/rules/constants.js';
import type { LadderMargin } from '../../src/rules/ladder-rule.js';
import { reservePower } from '../../src/rules/reserve-power.js';
import { reserveVerdict } from '../../src/rules/reserve-verdict.js';
import type { Counts, RateCounts } from '../../src/rules/types.js';
import { CURVE, curveLabel } from './curve.js';
import { seededRandom } from './random.js';
import { RULES, runRule, type Evaluation, type RuleName, type RuleRun, type RuleSettings } from './rules.js';
import {
  drawCandidates,
  drawSet,
  errorCount,
  score,
  type Candidate,
  type HeldOutSet,
  type WorldOptions,
} from './world.js';

export interface SimulationOptions extends WorldOptions {
  readonly seeds: number;
  readonly firstSeed: number;
  readonly alpha: number;
  readonly ladderMargin: LadderMargin;
  readonly threshold: number;
  readonly sigma: number;
  /** `budget`: the reads of a generation that compete (loop.yaml test_budget.reads). */
  readonly budgetReads: number;
}

/** What one rule did in one generation, in error-rate points (all items, both classes). */
export interface Outcome {
  /** Champion's test error minus its true error: the selection's flattery. */
  readonly optimism: number;
  /** The same for the error the ledger reports (rounded by the Ladder, noisy under Thresholdout). */
  readonly reportedOptimism: number;
  /** Champion changes after the first evaluation. */
  readonly promotions: number;
  /** Promotions whose new champion's true error is not lower than the one it replaced. */
  readonly falsePromotions: number;
  /** Champion's true error minus the best evaluated candidate's. */
  readonly regret: number;
  readonly reserveFailed: boolean;
}

export interface GenerationResult {
  readonly seed: number;
  readonly outcomes: Record<RuleName, Outcome>;
  /** The trade-off curve's points (curve.ts), by label. */
  readonly curve: Record<string, Outcome>;
  /** The dominance champion's reserve check: the least rise per class it detects with 80% power. */
  readonly reserveDetectable: { readonly f2p: number | null; readonly p2f: number | null };
}

const totalError = (counts: Counts, set: HeldOutSet): number =>
  (counts.fail_to_pass_count + counts.pass_to_fail_count) /
  (set.fails.difficulty.length + set.passes.difficulty.length);

const trueError = (candidate: Candidate, set: HeldOutSet): number => {
  const fails = set.fails.difficulty.length;
  const passes = set.passes.difficulty.length;
  return (fails * candidate.trueF2pRate + passes * candidate.trueP2fRate) / (fails + passes);
};

const rateCounts = (counts: Counts, set: HeldOutSet): RateCounts => ({
  ...counts,
  fail_count: set.fails.difficulty.length,
  pass_count: set.passes.difficulty.length,
});

// Per-purpose streams, so that adding a draw to one part of the world leaves the others as they were.
const stream = (seed: number, purpose: number): ReturnType<typeof seededRandom> =>
  seededRandom(Math.imul(seed, 0x9e3779b1) ^ Math.imul(purpose + 1, 0x85ebca6b));

/** Items drawn for the confirmation set: enough for the option and every point of the curve. */
const confirmationDrawn = (options: SimulationOptions): number =>
  Math.max(
    options.confirmationItems,
    ...CURVE.filter((point) => point.setting === 'confirmationItems').map((point) => point.value),
  );

/** Every candidate scored once on the test, validation and confirmation sets, as the rules see it. */
function scoreCandidates(
  seed: number,
  options: SimulationOptions,
  test: HeldOutSet,
  candidates: readonly Candidate[],
): Evaluation[] {
  const validation = drawSet(stream(seed, 1), options.validationItems, options.failFraction);
  // The `confirmed` rule's set, kept apart from the reserve set and read only at would-be promotions;
  // drawn at the curve's largest size, each setting reads the first of its items.
  const confirmation = drawSet(stream(seed, 3000), confirmationDrawn(options), options.failFraction);
  const scoring = stream(seed, 4);
  return candidates.map((candidate, index) => {
    const onTest = score(scoring, test, candidate, options.difficulty);
    const onValidation = score(scoring, validation, candidate, options.difficulty);
    // Its own stream, so the test and validation draws stay those of the rules before it.
    const onConfirmation = score(stream(seed, 4000 + index), confirmation, candidate, options.difficulty);
    return {
      test: { fail_to_pass_count: errorCount(onTest.f2p), pass_to_fail_count: errorCount(onTest.p2f) },
      testF2p: onTest.f2p,
      testP2f: onTest.p2f,
      validationF2pRate: errorCount(onValidation.f2p) / Math.max(1, validation.fails.difficulty.length),
      validationP2fRate: errorCount(onValidation.p2f) / Math.max(1, validation.passes.difficulty.length),
      confirmation: onConfirmation,
    };
  });
}

export function simulateGeneration(seed: number, options: SimulationOptions): GenerationResult {
  const test = drawSet(stream(seed, 0), options.testItems, options.failFraction);
  const reserve = drawSet(stream(seed, 2), options.reserveItems, options.failFraction);
  const candidates = drawCandidates(stream(seed, 3), options);
  const evaluations = scoreCandidates(seed, options, test, candidates);
  const settings: RuleSettings = {
    alpha: options.alpha,
    ladderMargin: options.ladderMargin,
    threshold: options.threshold,
    sigma: options.sigma,
    failItems: test.fails.difficulty.length,
    passItems: test.passes.difficulty.length,
    budgetReads: options.budgetReads,
    confirmationItems: options.confirmationItems,
  };
  const best = Math.min(...candidates.map((candidate) => trueError(candidate, test)));
  // A candidate's reserve outcome is the same whichever rule crowns it: its own stream.
  const reserveCounts = (index: number): Counts => {
    const onReserve = score(stream(seed, 1000 + index), reserve, candidates[index] as Candidate, options.difficulty);
    return { fail_to_pass_count: errorCount(onReserve.f2p), pass_to_fail_count: errorCount(onReserve.p2f) };
  };
  const outcome = (run: RuleRun): Outcome => {
    const candidate = candidates[run.champion] as Candidate;
    const championTest = (evaluations[run.champion] as Evaluation).test;
    const truth = trueError(candidate, test);
    const onTest = rateCounts(championTest, test);
    const onReserve = rateCounts(reserveCounts(run.champion), reserve);
    const truthOf = (index: number): number => trueError(candidates[index] as Candidate, test);
    return {
      optimism: truth - totalError(championTest, test),
      reportedOptimism: truth - totalError(run.reported, test),
      promotions: run.promotions,
      falsePromotions: run.champions
        .slice(1)
        .filter((index, i) => truthOf(index) >= truthOf(run.champions[i] as number)).length,
      regret: truth - best,
      reserveFailed: reserveVerdict(onTest, onReserve, ALPHA).verdict === 'fail',
    };
  };
  const outcomes = {} as Record<RuleName, Outcome>;
  let reserveDetectable: GenerationResult['reserveDetectable'] = { f2p: null, p2f: null };
  RULES.forEach((rule, ruleIndex) => {
    const run = runRule(rule, evaluations, settings, stream(seed, 5 + ruleIndex));
    if (rule === 'dominance') {
      const power = reservePower(
        rateCounts((evaluations[run.champion] as Evaluation).test, test),
        rateCounts(reserveCounts(run.champion), reserve),
        ALPHA,
      );
      reserveDetectable = { f2p: power.f2p_detectable, p2f: power.p2f_detectable };
    }
    outcomes[rule] = outcome(run);
  });
  const curve = Object.fromEntries(
    CURVE.map((point, pointIndex) => [
      curveLabel(point),
      outcome(
        runRule(point.rule, evaluations, { ...settings, [point.setting]: point.value }, stream(seed, 100 + pointIndex)),
      ),
    ]),
  );
  return { seed, outcomes, curve, reserveDetectable };
}

export function simulate(options: SimulationOptions): GenerationResult[] {
  return Array.from({ length: options.seeds }, (_, i) => simulateGeneration(options.firstSeed + i, options));
}
