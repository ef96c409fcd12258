import type { Counts } from './types.js';

/**
 * loop.yaml's `ladder_margin`: a whole number of items (1 or more), or a fraction of the class's
 * items (strictly between 0 and 1) — of fail_count for Fail->Pass, of pass_count for Pass->Fail.
 */
export type LadderMargin = number;

/** loop.yaml `ladder_margin` when `champion_rule: ladder` sets none: 1% of each class. */
export const DEFAULT_LADDER_MARGIN: LadderMargin = 0.01;

/** The denominators a fractional margin is taken of. */
export interface ClassTotals {
  readonly fail_count: number;
  readonly pass_count: number;
}

/** The margin of each error class in items, at least 1 (a margin of 0 would be dominance). */
export interface LadderSteps {
  readonly f2p: number;
  readonly p2f: number;
}

/** What the `ladder` rule decided and the numbers it decided on. */
export interface LadderDecision {
  readonly rule: 'ladder';
  readonly margin: LadderMargin;
  readonly steps: LadderSteps;
  /** The champion's recorded (rounded) counts the challenger was held to. */
  readonly against: Counts;
  readonly promote: boolean;
  /** The counts recorded for the challenger if promoted: its counts rounded to the steps. */
  readonly recorded: Counts;
}

export function checkLadderMargin(margin: LadderMargin): void {
  const isFraction = margin > 0 && margin < 1;
  const isItems = Number.isInteger(margin) && margin >= 1;
  if (!isFraction && !isItems) {
    throw new RangeError(
      `ladder_margin must be a whole number of items (1 or more) or a fraction strictly between 0 and 1: got ${margin}`,
    );
  }
}

/** The margin in items per class; a fraction rounds up, so the step is never below what was asked. */
export function ladderSteps(margin: LadderMargin, totals: ClassTotals): LadderSteps {
  checkLadderMargin(margin);
  if (margin >= 1) {
    return { f2p: margin, p2f: margin };
  }
  return {
    f2p: Math.max(1, Math.ceil(margin * totals.fail_count)),
    p2f: Math.max(1, Math.ceil(margin * totals.pass_count)),
  };
}

/**
 * The Ladder's rounding (Blum & Hardt 2015): the leaderboard keeps the best score rounded to the
 * nearest multiple of the step, so what it reveals of the test set is a few bits per promotion, not
 * a fresh count per evaluation. Halves round up (towards more errors: never flattering).
 */
export function ladderRound(count: number, step: number): number {
  if (!Number.isInteger(step) || step < 1) {
    throw new RangeError(`a ladder step must be a whole number of items >= 1: got ${step}`);
  }
  return Math.floor(count / step + 0.5) * step;
}

/** Counts rounded to the steps, as the ledger records them under the `ladder` rule. */
function ladderRecorded(counts: Counts, steps: LadderSteps): Counts {
  return {
    fail_to_pass_count: ladderRound(counts.fail_to_pass_count, steps.f2p),
    pass_to_fail_count: ladderRound(counts.pass_to_fail_count, steps.p2f),
  };
}

/**
 * The `ladder` champion rule: the challenger must improve one count by at least its step against
 * the champion's recorded (rounded) counts and be worse on neither. `champion` null: the first
 * eval of a generation is champion, as under dominance.
 */
export function ladderDecision(
  challenger: Counts,
  champion: Counts | null,
  margin: LadderMargin,
  totals: ClassTotals,
): LadderDecision {
  const steps = ladderSteps(margin, totals);
  const recorded = ladderRecorded(challenger, steps);
  if (champion === null) {
    return { rule: 'ladder', margin, steps, against: recorded, promote: true, recorded };
  }
  const f2p = challenger.fail_to_pass_count;
  const p2f = challenger.pass_to_fail_count;
  const worseOnNeither = f2p <= champion.fail_to_pass_count && p2f <= champion.pass_to_fail_count;
  const improvesByStep =
    f2p <= champion.fail_to_pass_count - steps.f2p || p2f <= champion.pass_to_fail_count - steps.p2f;
  return { rule: 'ladder', margin, steps, against: champion, promote: worseOnNeither && improvesByStep, recorded };
}
