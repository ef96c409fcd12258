import { dominates } from './dominance.js';
import { checkAlpha, exactMcNemar, holmRejects, type Discordant, type McNemar } from './mcnemar.js';
import type { Counts } from './types.js';

/** Discordant items of both error classes, as the per-item comparison activity reports them. */
export interface PairedDiscordant {
  readonly f2p: Discordant;
  readonly p2f: Discordant;
}

/** What the `paired` rule decided and the statistics it decided on: the eval and champion rows keep it. */
export interface PairedDecision {
  readonly rule: 'paired';
  readonly alpha: number;
  readonly f2p: McNemar & { readonly better: boolean; readonly worse: boolean };
  readonly p2f: McNemar & { readonly better: boolean; readonly worse: boolean };
  readonly dominates: boolean;
  readonly promote: boolean;
}

/**
 * The `paired` champion rule: a challenger whose counts dominate must also be significantly better
 * on the discordant items of at least one error class and significantly worse on neither (exact
 * one-sided McNemar per class; Holm across the two classes at family-wise `alpha`, separately for
 * "better" and for "worse").
 */
export function pairedDecision(
  challenger: Counts,
  champion: Counts,
  discordant: PairedDiscordant,
  alpha: number,
): PairedDecision {
  checkAlpha(alpha);
  const f2p = exactMcNemar(discordant.f2p);
  const p2f = exactMcNemar(discordant.p2f);
  const [f2pBetter, p2fBetter] = holmRejects([f2p.p_better, p2f.p_better], alpha);
  const [f2pWorse, p2fWorse] = holmRejects([f2p.p_worse, p2f.p_worse], alpha);
  const countsDominate = dominates(challenger, champion);
  return {
    rule: 'paired',
    alpha,
    f2p: { ...f2p, better: f2pBetter, worse: f2pWorse },
    p2f: { ...p2f, better: p2fBetter, worse: p2fWorse },
    dominates: countsDominate,
    promote: countsDominate && (f2pBetter || p2fBetter) && !f2pWorse && !p2fWorse,
  };
}
