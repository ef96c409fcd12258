import { dominates } from './dominance.js';
import { pairRecords, type ItemErrors } from './item-errors.js';
import { checkAlpha } from './mcnemar.js';
import { pairedDecision, type PairedDecision } from './paired-rule.js';
import type { Counts } from './types.js';

/** loop.yaml `alpha` when `champion_rule: paired` sets none: family-wise over the two error classes. */
export const DEFAULT_PAIRED_ALPHA = 0.05;

/**
 * What the `paired` rule decided for one test eval, as its eval row keeps it: the McNemar
 * statistics when the two checkpoints could be paired item by item (`paired: 'ok'`), else
 * dominance's decision and why the items could not be paired (`paired: 'unavailable'`).
 */
export type PairedJudgement =
  | (PairedDecision & { readonly paired: 'ok' })
  | {
      readonly rule: 'paired';
      readonly alpha: number;
      readonly paired: 'unavailable';
      readonly reason: string;
      readonly dominates: boolean;
      readonly promote: boolean;
    };

/** A checkpoint as the paired rule reads it: its compared counts and its per-item record. */
export interface PairedSide {
  readonly counts: Counts;
  readonly errors: ItemErrors | undefined;
}

/**
 * The `paired` rule's judgement of a challenger against the champion (null: the generation's
 * first test eval, champion by dominance's rule). Records that cannot be paired (one lacks its
 * record, or they scored different test items) leave the decision to dominance, and say why.
 */
export function pairedJudgement(challenger: PairedSide, champion: PairedSide | null, alpha: number): PairedJudgement {
  checkAlpha(alpha);
  if (champion === null) {
    return { rule: 'paired', alpha, paired: 'unavailable', reason: 'no champion yet', dominates: true, promote: true };
  }
  const pairing = pairRecords(champion.errors, challenger.errors);
  if (!pairing.ok) {
    const countsDominate = dominates(challenger.counts, champion.counts);
    return {
      rule: 'paired',
      alpha,
      paired: 'unavailable',
      reason: pairing.reason,
      dominates: countsDominate,
      promote: countsDominate,
    };
  }
  return { ...pairedDecision(challenger.counts, champion.counts, pairing.discordant, alpha), paired: 'ok' };
}
