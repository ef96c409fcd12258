import type { PairedDiscordant } from './paired-rule.js';

/** What the paired comparison reads of a scores row (src/contract/scores.ts): margin > 0 passes the item. */
export interface ScoredItem {
  readonly margin: number;
  readonly target: 0 | 1;
  readonly id?: unknown;
}

/** Fail items the gate passed (Fail->Pass) and pass items it failed (Pass->Fail). */
const isError = (item: ScoredItem): boolean => (item.target === 0 ? item.margin > 0 : item.margin <= 0);

const keyOf = (id: unknown): string | null =>
  typeof id === 'string' ? `s:${id}` : typeof id === 'number' && Number.isFinite(id) ? `n:${id}` : null;

/**
 * The items two scores files of the same test set have in common, as pairs: by `id` when every
 * row of both carries one (string or number), else by line when both list the same targets in
 * the same order. Anything else cannot be paired, and pairing it by guess would test nonsense.
 */
export function pairItems(
  champion: readonly ScoredItem[],
  challenger: readonly ScoredItem[],
): readonly (readonly [ScoredItem, ScoredItem])[] {
  const championKeys = champion.map((item) => keyOf(item.id));
  const challengerKeys = challenger.map((item) => keyOf(item.id));
  if (championKeys.every((key) => key !== null) && challengerKeys.every((key) => key !== null)) {
    const byKey = new Map(challenger.map((item, index) => [challengerKeys[index] as string, item]));
    const pairs: (readonly [ScoredItem, ScoredItem])[] = [];
    champion.forEach((item, index) => {
      const other = byKey.get(championKeys[index] as string);
      if (other !== undefined) {
        if (other.target !== item.target) {
          throw new RangeError(
            `item ${String(item.id)} has target ${item.target} in one scores file and ${other.target} in the other`,
          );
        }
        pairs.push([item, other]);
      }
    });
    return pairs;
  }
  const sameItems =
    champion.length === challenger.length && champion.every((item, index) => item.target === challenger[index]?.target);
  if (!sameItems) {
    throw new RangeError(
      'the two scores files cannot be paired item by item: give every row an `id` (the evaluator may add it), or score the same items in the same order',
    );
  }
  return champion.map((item, index) => [item, challenger[index] as ScoredItem] as const);
}

/** Discordant items per error class between a champion's and a challenger's scores on the items both scored. */
export function discordantItems(champion: readonly ScoredItem[], challenger: readonly ScoredItem[]): PairedDiscordant {
  const counts = {
    f2p: { champion_only: 0, challenger_only: 0 },
    p2f: { champion_only: 0, challenger_only: 0 },
  };
  for (const [a, b] of pairItems(champion, challenger)) {
    const cls = a.target === 0 ? counts.f2p : counts.p2f;
    const championErrs = isError(a);
    const challengerErrs = isError(b);
    if (championErrs && !challengerErrs) cls.champion_only += 1;
    if (challengerErrs && !championErrs) cls.challenger_only += 1;
  }
  return counts;
}
