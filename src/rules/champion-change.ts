// Why a champion replaced the one before it, in words: the rule that decided it and, where the
// champion is the front's first member (band decisions), the tie-break that put it first.
import type { PairedJudgement } from './paired-fold.js';
import type { Comparable, Compared, CompareKey, Counts } from './types.js';

/** A champion row as far as its reason reads it. */
export interface ChampionChange {
  readonly previous: Comparable | null;
  readonly champion: Comparable;
  readonly ladder?: { readonly margin: number; readonly recorded: Counts };
  readonly paired?: PairedJudgement;
}

type Block = Compared | null | undefined;

const f2p = (block: Compared) => block.fail_to_pass_count;
const p2f = (block: Compared) => block.pass_to_fail_count;
const rejected = (block: Compared) => block.rejected_total ?? 0;

/** "3 -> 1" */
const moved = (before: number, after: number) => `${before} -> ${after}`;

/** Default mode: the champion dominates the one before it on the compared counts. */
function dominanceWords(before: Compared, after: Compared): string {
  return `dominates the previous champion: Fail->Pass ${moved(f2p(before), f2p(after))}, Pass->Fail ${moved(p2f(before), p2f(after))}`;
}

/**
 * Band decisions: the front's first member by (Fail->Pass, Pass->Fail, rejected, finished): the
 * first of these in which the champion comes before the previous one is the tie-break that decided.
 */
function tieBreakWords(before: Compared, after: Compared): string {
  if (f2p(after) !== f2p(before)) return `fewest Fail->Pass on the front (${moved(f2p(before), f2p(after))})`;
  if (p2f(after) !== p2f(before))
    return `tie on Fail->Pass (${f2p(after)}); fewer Pass->Fail (${moved(p2f(before), p2f(after))})`;
  if (rejected(after) !== rejected(before))
    return `tie on Fail->Pass (${f2p(after)}) and Pass->Fail (${p2f(after)}); fewer rejected by the band (${moved(rejected(before), rejected(after))})`;
  return 'tie on Fail->Pass, Pass->Fail and rejections: the front member that finished first';
}

/**
 * The words for one champion change, on the block the loop compared (`result`, or `decided` under
 * band decisions): the first champion of a generation, the champion rule's judgement (ladder,
 * paired), or the dominance or tie-break that decided it.
 */
export function championChangeReason(change: ChampionChange, key: CompareKey): string {
  const { previous, champion } = change;
  if (previous === null) return 'the first champion of its generation';
  if (change.ladder !== undefined)
    return `champion_rule ladder (margin ${change.ladder.margin}): recorded Fail->Pass ${change.ladder.recorded.fail_to_pass_count}, Pass->Fail ${change.ladder.recorded.pass_to_fail_count}, worse on neither`;
  if (change.paired !== undefined) {
    const judged = change.paired;
    return judged.paired === 'ok'
      ? `champion_rule paired: significantly better (McNemar, Holm at alpha ${judged.alpha}): ` +
          `Fail->Pass p=${judged.f2p.p_better.toFixed(4)}, Pass->Fail p=${judged.p2f.p_better.toFixed(4)}`
      : `champion_rule paired, unpaired (${judged.reason}): decided on the counts`;
  }
  const before: Block = previous[key];
  const after: Block = champion[key];
  if (!before || !after) return `decided on counts this ledger lacks ('${key}')`;
  if (key === 'result') return dominanceWords(before, after);
  return tieBreakWords(before, after);
}
