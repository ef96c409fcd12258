// The champion rules as the simulation runs them over one generation's evaluations. Each one
// calls the loop's own rule code in src/rules (dominance, paired, ladder); only the
// Thresholdout-style comparison, which the loop does not offer, is written here.
import {
  applyTestEval,
  nextChampionDefault,
  openChampionState,
  type ChampionState,
  type TestEvalRow,
} from '../../src/rules/champion.js';
import { dominates } from '../../src/rules/dominance.js';
import type { LadderMargin } from '../../src/rules/ladder-rule.js';
import type { Discordant } from '../../src/rules/mcnemar.js';
import { pairedDecision } from '../../src/rules/paired-rule.js';
import type { Counts } from '../../src/rules/types.js';
import type { Random } from './random.js';
import type { Errors } from './world.js';

export const RULES = ['dominance', 'paired', 'ladder', 'thresholdout'] as const;
export type RuleName = (typeof RULES)[number];

/** One scored checkpoint as the rules see it: its test counts and per-item errors, its validation rates. */
export interface Evaluation {
  readonly test: Counts;
  readonly testF2p: Errors;
  readonly testP2f: Errors;
  readonly validationF2pRate: number;
  readonly validationP2fRate: number;
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
}

/** A rule's run over a generation: the champion, how many times it changed, and the error it reported. */
export interface RuleRun {
  readonly champion: number;
  readonly promotions: number;
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

function runDominance(evaluations: readonly Evaluation[]): RuleRun {
  let champion: { readonly index: number; readonly result: Counts } | null = null;
  let promotions = 0;
  evaluations.forEach((evaluation, index) => {
    const next = nextChampionDefault(champion, { index, result: evaluation.test });
    if (champion !== null && next !== champion) {
      promotions += 1;
    }
    champion = next;
  });
  const final = champion as unknown as { readonly index: number; readonly result: Counts };
  return { champion: final.index, promotions, reported: final.result };
}

function runPaired(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  let champion = 0;
  let promotions = 0;
  evaluations.forEach((evaluation, index) => {
    if (index === 0) {
      return;
    }
    const current = evaluations[champion] as Evaluation;
    // Only a dominating challenger can pass; the per-item pass over the scores is skipped otherwise, as in the loop.
    if (!dominates(evaluation.test, current.test)) {
      return;
    }
    const decision = pairedDecision(
      evaluation.test,
      current.test,
      { f2p: discordant(current.testF2p, evaluation.testF2p), p2f: discordant(current.testP2f, evaluation.testP2f) },
      settings.alpha,
    );
    if (decision.promote) {
      champion = index;
      promotions += 1;
    }
  });
  return { champion, promotions, reported: (evaluations[champion] as Evaluation).test };
}

function runLadder(evaluations: readonly Evaluation[], settings: RuleSettings): RuleRun {
  // The loop's own fold step under `champion_rule: ladder` (applyTestEval with a margin), on rows
  // that carry what it reads: role, status, generation, the result block with its class totals.
  type Row = TestEvalRow & { readonly index: number };
  let state: ChampionState<Row> = { ...openChampionState<Row>(1), ladderRecorded: null };
  let promotions = 0;
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
    if (state.champion !== null && next.champion !== state.champion) {
      promotions += 1;
    }
    state = next;
  });
  const champion = state.champion as Row;
  return { champion: champion.index, promotions, reported: state.ladderRecorded as Counts };
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
  let promotions = 0;
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
    if (champion !== null && next !== champion) {
      promotions += 1;
    }
    champion = next;
  });
  const final = champion as unknown as { readonly index: number; readonly result: Counts };
  return { champion: final.index, promotions, reported: final.result };
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
  }
}
