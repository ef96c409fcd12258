// The champion rules as the simulation runs them over one generation's evaluations. Each one
// calls the loop's own rule code in src/rules (dominance, paired, ladder); the Thresholdout-style
// comparison and the four candidate rules of issue 30 (paired with validation agreeing, alpha
// spent across promotions, confirmation on a set kept apart, a ladder margin that grows with the
// reads), which the loop does not offer, are written here on top of it. `budget` is loop.yaml's
// `test_budget` with `when_spent: freeze`: dominance over the first reads only.
import {
  applyTestEval,
  nextChampionDefault,
  openChampionState,
  type ChampionState,
  type TestEvalRow,
} from '../../src/rules/champion.js';
import { dominates } from '../../src/rules/dominance.js';
import { ladderDecision, type LadderMargin } from '../../src/rules/ladder-rule.js';
import type { Discordant } from '../../src/rules/mcnemar.js';
import { pairedDecision } from '../../src/rules/paired-rule.js';
import type { Counts } from '../../src/rules/types.js';
import type { Random } from './random.js';
import { errorCount, type Errors } from './world.js';

export const RULES = [
  'dominance',
  'paired',
  'ladder',
  'thresholdout',
  'paired-validated',
  'alpha-spending',
  'confirmed',
  'ladder-growing',
  'budget',
] as const;
export type RuleName = (typeof RULES)[number];

/**
 * One scored checkpoint as the rules see it: its test counts and per-item errors, its validation
 * rates, and its per-item errors on the confirmation set (a part of the reserve set kept apart,
 * read only when a challenger would be promoted).
 */
export interface Evaluation {
  readonly test: Counts;
  readonly testF2p: Errors;
  readonly testP2f: Errors;
  readonly validationF2pRate: number;
  readonly validationP2fRate: number;
  readonly confirmation: { readonly f2p: Errors; readonly p2f: Errors };
}

export interface RuleSettings {
  readonly alpha: number;
  readonly ladderMargin: LadderMargin;
  /** Thresholdout's threshold and noise scale, as rates. */
  readonly threshold: number;
  readonly sigma: number;
  /** Items per class on the test set (the Ladder's fractional margin and Thresholdout's rates). */
  readonly failItems: number;
  readonly passItems: number;
  /** `confirmed`: the confirmation items it reads, the first of the drawn set's (in proportion per class). */
  readonly confirmationItems: number;
  /** `budget`: the reads that compete; later ones judge nothing (test_budget, when_spent: freeze). */
  readonly budgetReads: number;
}

/** A rule's run over a generation: its champions in turn, and the error it reported of the last. */
export interface RuleRun {
  /** The final champion: the last of `champions`. */
  readonly champion: number;
  /** Champion changes after the first evaluation: `champions.length - 1`. */
  readonly promotions: number;
  /** Every champion of the generation in the order it was crowned, the first evaluation first. */
  readonly champions: readonly number[];
  /** The champion's errors as the ledger shows them (rounded under the Ladder, noisy under Thresholdout). */
  readonly reported: Counts;
}

export function discordant(champion: Errors, challenger: Errors): Discordant {
  let championOnly = 0;
  let challengerOnly = 0;
  for (let i = 0; i < champion.length; i++) {
    const a = champion[i] as number;
    const b = challenger[i] as number;
    championOnly += a & (1 - b);
    challengerOnly += b & (1 - a);
  }
  return { champion_only: championOnly, challenger_only: challengerOnly };
}

/** A run from the champions in turn. */
function ranOver(champions: readonly number[], reported: Counts): RuleRun {
  return { champion: champions.at(-1) as number, promotions: champions.length - 1, champions, reported };
}

/**
 * Champions by a promotion test over the evaluations in turn: the first is champion; each later
 * one takes over when `promote(challenger, champion, promotionsSoFar)` says so.
 */
function crownIf(
  evaluations: readonly Evaluation[],
  promote: (challenger: Evaluation, champion: Evaluation, promotions: number) => boolean,
): RuleRun {
  const champions = [0];
  evaluations.forEach((evaluation, index) => {
    const champion = evaluations[champions.at(-1) as number] as Evaluation;
    if (index > 0 && promote(evaluation, champion, champions.length - 1)) {
      champions.push(index);
    }
  });
  return ranOver(champions, (evaluations[champions.at(-1) as number] as Evaluation).test);
}

function runDominance(evaluations: readonly Evaluation[]): RuleRun {
  let champion: { readonly index: number; readonly result: Counts } | null = null;
  const champions: number[] = [];
  evaluations.forEach((evaluation, index) => {
    const next = nextChampionDefault(champion, { index, result: evaluation.test });
    if (next !== champion) {
      champions.push(index);
    }
    champion = next;
  });
  const final = champion as unknown as { readonly index: number; readonly result: Counts };
  return ranOver(champions, final.result);
}

/** The loop's `paired` judgement at `alpha`; only a dominating challenger is paired, as in the loop. */
function pairedPromotes(challenger: Evaluation, champion: Evaluation, alpha: number): boolean {
  if (!dominates(challenger.test, champion.test)) {
    return false;
  }
  return pairedDecision(
    challenger.test,
    champion.test,
    { f2p: discordant(champion.testF2p, challenger.testF2p), p2f: discordant(champion.testP2f, challenger.testP2f) },
    alpha,
  ).promote;
}

function runPaired(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  return crownIf(evaluations, (challenger, champion) => pairedPromotes(challenger, champion, settings.alpha));
}

/** Paired, and the challenger's validation rates no worse than the champion's on either class. */
function runPairedValidated(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  return crownIf(
    evaluations,
    (challenger, champion) =>
      challenger.validationF2pRate <= champion.validationF2pRate &&
      challenger.validationP2fRate <= champion.validationP2fRate &&
      pairedPromotes(challenger, champion, settings.alpha),
  );
}

/**
 * Paired, with alpha spent across the generation's promotions: the k-th promotion is tested at
 * alpha / 2^k, so the chance of any promotion by luck in a generation stays below alpha however
 * many there are (the spending sums to alpha).
 */
function runAlphaSpending(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  return crownIf(evaluations, (challenger, champion, promotions) =>
    pairedPromotes(challenger, champion, settings.alpha / 2 ** (promotions + 1)),
  );
}

/**
 * Dominance on the test set, confirmed on the confirmation set (a part of the reserve set kept
 * apart for it): the challenger must make fewer errors there in all than the champion. The set is
 * read only at would-be promotions, so it is reused far less than the test set.
 */
function runConfirmed(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  const drawn = (evaluations[0] as Evaluation).confirmation;
  const share = Math.min(1, settings.confirmationItems / (drawn.f2p.length + drawn.p2f.length));
  const firstErrors = (errors: Errors): number => errorCount(errors.subarray(0, Math.round(errors.length * share)));
  const total = (evaluation: Evaluation): number =>
    firstErrors(evaluation.confirmation.f2p) + firstErrors(evaluation.confirmation.p2f);
  return crownIf(
    evaluations,
    (challenger, champion) => dominates(challenger.test, champion.test) && total(challenger) < total(champion),
  );
}

function runLadder(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  // The loop's own fold step under `champion_rule: ladder` (applyTestEval with a margin), on rows
  // that carry what it reads: role, status, generation, the result block with its class totals.
  type Row = TestEvalRow & { readonly index: number };
  let state: ChampionState<Row> = { ...openChampionState<Row>(1), ladderRecorded: null };
  const champions: number[] = [];
  evaluations.forEach((evaluation, index) => {
    const row: Row = {
      index,
      generation: 1,
      role: 'test',
      status: 'ok',
      finished: String(index).padStart(6, '0'),
      result: { ...evaluation.test, fail_count: settings.failItems, pass_count: settings.passItems } as Counts,
    };
    const next = applyTestEval(state, row, 'default', settings.ladderMargin);
    if (next.champion !== state.champion) {
      champions.push(index);
    }
    state = next;
  });
  return ranOver(champions, state.ladderRecorded as Counts);
}

/**
 * The Ladder on the budget: the margin grows with the reads made, as the best-of-n optimism does
 * (the n-th read is held to `ladder_margin x sqrt(ln n)`, at least `ladder_margin`), against the
 * champion's counts as recorded at its own promotion (the loop's ladderDecision).
 */
function runLadderGrowing(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  const totals = { fail_count: settings.failItems, pass_count: settings.passItems };
  const margin = (reads: number): LadderMargin => {
    const grown = settings.ladderMargin * Math.sqrt(Math.max(1, Math.log(reads)));
    // A margin in items grows in whole items; a fraction stays below 1 of the class.
    return settings.ladderMargin >= 1 ? Math.ceil(grown) : Math.min(0.5, grown);
  };
  let recorded: Counts | null = null;
  const champions: number[] = [];
  evaluations.forEach((evaluation, index) => {
    const decision = ladderDecision(evaluation.test, recorded, margin(index + 1), totals);
    if (decision.promote) {
      champions.push(index);
      recorded = decision.recorded;
    }
  });
  return ranOver(champions, recorded as unknown as Counts);
}

/** loop.yaml `test_budget` (`when_spent: freeze`) over dominance: reads past the budget judge nothing. */
function runBudget(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  return runDominance(evaluations.slice(0, settings.budgetReads));
}

const laplace = (random: Random, scale: number): number => {
  const u = random.uniform() - 0.5;
  return -scale * Math.sign(u) * Math.log(1 - 2 * Math.abs(u));
};

/**
 * Thresholdout (Dwork et al. 2015) per class: the validation rate is answered unless it strays from
 * the test rate by more than a noisy threshold, then the test rate plus Laplace noise. Champions
 * by dominance on the answers. No budget: a generation's queries are answered to the end.
 */
function runThresholdout(evaluations: readonly Evaluation[], settings: RuleSettings, random: Random): RuleRun {
  const answer = (validation: number, test: number): number =>
    Math.abs(validation - test) > settings.threshold + laplace(random, 4 * settings.sigma)
      ? test + laplace(random, settings.sigma)
      : validation;
  let champion: { readonly index: number; readonly result: Counts } | null = null;
  const champions: number[] = [];
  evaluations.forEach((evaluation, index) => {
    const result: Counts = {
      fail_to_pass_count:
        answer(evaluation.validationF2pRate, evaluation.test.fail_to_pass_count / settings.failItems) *
        settings.failItems,
      pass_to_fail_count:
        answer(evaluation.validationP2fRate, evaluation.test.pass_to_fail_count / settings.passItems) *
        settings.passItems,
    };
    const next = nextChampionDefault(champion, { index, result });
    if (next !== champion) {
      champions.push(index);
    }
    champion = next;
  });
  const final = champion as unknown as { readonly index: number; readonly result: Counts };
  return ranOver(champions, final.result);
}

export function runRule(
  rule: RuleName,
  evaluations: readonly Evaluation[],
  settings: RuleSettings,
  random: Random,
): RuleRun {
  if (evaluations.length === 0) {
    throw new RangeError('a generation without evaluations has no champion');
  }
  switch (rule) {
    case 'dominance':
      return runDominance(evaluations);
    case 'paired':
      return runPaired(evaluations, settings);
    case 'ladder':
      return runLadder(evaluations, settings);
    case 'thresholdout':
      return runThresholdout(evaluations, settings, random);
    case 'paired-validated':
      return runPairedValidated(evaluations, settings);
    case 'alpha-spending':
      return runAlphaSpending(evaluations, settings);
    case 'confirmed':
      return runConfirmed(evaluations, settings);
    case 'ladder-growing':
      return runLadderGrowing(evaluations, settings);
    case 'budget':
      return runBudget(evaluations, settings);
  }
}
