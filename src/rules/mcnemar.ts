import { fairCoinUpperTail } from './binomial-tail.js';

/**
 * The discordant items of one error class between a champion and a challenger, on the items both
 * scored: `champion_only` the champion got wrong and the challenger right, `challenger_only` the
 * reverse. Concordant items carry no information about which is better (McNemar).
 */
export interface Discordant {
  readonly champion_only: number;
  readonly challenger_only: number;
}

/** One-sided exact McNemar p-values of one error class, both directions. */
export interface McNemar extends Discordant {
  /** P-value that the challenger makes fewer errors of this class than the champion. */
  readonly p_better: number;
  /** P-value that the challenger makes more errors of this class than the champion. */
  readonly p_worse: number;
}

/**
 * Exact one-sided McNemar test on the discordant items of one class: under "equally good" each
 * discordant item is a fair coin, so champion_only ~ Binomial(n, 1/2) with n all discordant items.
 * No discordant item is no evidence either way: both p-values are 1.
 */
export function exactMcNemar(discordant: Discordant): McNemar {
  const { champion_only, challenger_only } = discordant;
  for (const value of [champion_only, challenger_only]) {
    if (!Number.isInteger(value) || value < 0) {
      throw new RangeError(`discordant counts must be whole numbers >= 0: got ${champion_only}, ${challenger_only}`);
    }
  }
  const n = champion_only + challenger_only;
  return {
    champion_only,
    challenger_only,
    p_better: fairCoinUpperTail(n, champion_only),
    p_worse: fairCoinUpperTail(n, challenger_only),
  };
}

/**
 * Holm's step-down procedure for two hypotheses at family-wise `alpha`: the smaller p-value is
 * held to alpha / 2, and only if it is rejected the larger one to alpha. Returns, per input,
 * whether it is rejected. Holm, not Bonferroni: it rejects whatever Bonferroni does and sometimes
 * the second class too, with the same family-wise guarantee.
 */
export function holmRejects(pValues: readonly [number, number], alpha: number): readonly [boolean, boolean] {
  checkAlpha(alpha);
  const [a, b] = pValues;
  const firstIsSmaller = a <= b;
  const small = firstIsSmaller ? a : b;
  const large = firstIsSmaller ? b : a;
  const smallRejected = small <= alpha / 2;
  const largeRejected = smallRejected && large <= alpha;
  return firstIsSmaller ? [smallRejected, largeRejected] : [largeRejected, smallRejected];
}

export function checkAlpha(alpha: number): void {
  if (!(alpha > 0 && alpha < 1)) {
    throw new RangeError(`alpha must lie strictly between 0 and 1: got ${alpha}`);
  }
}
