import { comparedBlock } from './compared.js';
import { dominates } from './dominance.js';
import { ladderDecision, type ClassTotals, type LadderDecision, type LadderMargin } from './ladder-rule.js';
import { pairedJudgement, type PairedJudgement } from './paired-fold.js';
import type { ItemErrors } from './item-errors.js';
import { incrementalParetoFront } from './pareto.js';
import type { Comparable, CompareKey, Counts, EvalRow } from './types.js';

/** `default` compares `result` by dominance; `band-decisions` (loop.yaml's `band_decisions`) picks from the `decided` front. */
export type ChampionMode = 'default' | 'band-decisions';

/** A test eval row as far as the champion rules read it. */
export type TestEvalRow = Comparable & Pick<EvalRow, 'generation' | 'role' | 'status' | 'finished'>;

/** Champion, front and test eval count of one generation, as docs/behaviour.md, section 5 keeps them. */
export interface ChampionState<R> {
  readonly generation: number;
  readonly champion: R | null;
  readonly front: readonly R[];
  readonly testEvals: number;
  /** Under `champion_rule: ladder` only: the champion's counts as recorded (rounded to the steps). */
  readonly ladderRecorded?: Counts | null;
  /** Under `champion_rule: ladder` only: the decision the last test eval was judged by (null: none). */
  readonly ladderDecision?: LadderDecision | null;
  /** Under `champion_rule: paired` only: the judgement the last test eval was judged by (null: none). */
  readonly pairedJudgement?: PairedJudgement | null;
}

/** loop.yaml's champion rule other than dominance, with its setting. */
export type ChampionRuleSetting =
  { readonly rule: 'ladder'; readonly margin: LadderMargin } | { readonly rule: 'paired'; readonly alpha: number };

/** A champion as identity reads it: the run and checkpoint it is. */
interface ChampionKey {
  readonly run_id: string;
  readonly checkpoint_name: string;
}

const hasKey = (row: object): row is ChampionKey =>
  typeof (row as Partial<ChampionKey>).run_id === 'string' &&
  typeof (row as Partial<ChampionKey>).checkpoint_name === 'string';

/**
 * Whether two champions are one: the same run and checkpoint. A champion is a different object
 * after continue-as-new, a resume or a carried ledger (the champion and its front member are
 * decoded apart), so identity is never the object's; only rows without a run id (the rules'
 * own tests, the selection bench) are told apart as objects.
 */
export function sameChampion<R extends object>(a: R | null, b: R | null): boolean {
  if (a === null || b === null) return a === b;
  if (hasKey(a) && hasKey(b)) return a.run_id === b.run_id && a.checkpoint_name === b.checkpoint_name;
  return a === b;
}

/**
 * How a fold tells that the champion stayed: `checkpoint` (sameChampion), or `object` (the rule
 * before patch champion-identity, kept only to replay runs recorded by that code).
 */
export type ChampionIdentity = 'checkpoint' | 'object';

/** Whether `candidate` is the champion `champion`, as `identity` tells. */
export function isChampion<R extends object>(
  candidate: R | null,
  champion: R | null,
  identity: ChampionIdentity,
): boolean {
  return identity === 'object' ? candidate === champion : sameChampion(candidate, champion);
}

/** The block a mode compares champions on. */
export function compareKeyFor(mode: ChampionMode): CompareKey {
  return mode === 'band-decisions' ? 'decided' : 'result';
}

/** Default mode: the first row is champion; later only a row that dominates it takes over. */
export function nextChampionDefault<R extends Comparable>(champion: R | null, row: R, key: CompareKey = 'result'): R {
  if (champion === null || dominates(comparedBlock(row, key), comparedBlock(champion, key))) {
    return row;
  }
  return champion;
}

/** Band-decision mode: the front member with the fewest (f2p, p2f, rejections), then earliest finished. */
export function frontChampion<R extends Comparable & { readonly finished: string }>(
  front: readonly R[],
  key: CompareKey,
): R {
  // Dominance alone would leave the champion to evaluation order; this is the order the band is chosen by.
  let best: R | undefined;
  for (const row of front) {
    if (best === undefined || lexicographicallyBefore(row, best, key)) {
      best = row;
    }
  }
  if (best === undefined) {
    throw new RangeError('an empty front has no champion');
  }
  return best;
}

function lexicographicallyBefore(
  row: Comparable & { readonly finished: string },
  best: Comparable & { readonly finished: string },
  key: CompareKey,
): boolean {
  const a = comparedBlock(row, key);
  const b = comparedBlock(best, key);
  if (a.fail_to_pass_count !== b.fail_to_pass_count) {
    return a.fail_to_pass_count < b.fail_to_pass_count;
  }
  if (a.pass_to_fail_count !== b.pass_to_fail_count) {
    return a.pass_to_fail_count < b.pass_to_fail_count;
  }
  const aRejected = a.rejected_total ?? 0;
  const bRejected = b.rejected_total ?? 0;
  if (aRejected !== bRejected) {
    return aRejected < bRejected;
  }
  // Strict, so that equal rows keep the earliest, as Python's min() does.
  return row.finished < best.finished;
}

/** The state of a freshly opened generation. */
export function openChampionState<R>(generation: number): ChampionState<R> {
  return { generation, champion: null, front: [], testEvals: 0 };
}

/**
 * `champion_rule: ladder`: the would-be champion (the row, or under band decisions the front's
 * best) takes over only when the Ladder accepts it against the champion's recorded counts.
 */
function ladderStep<R extends TestEvalRow>(
  state: ChampionState<R>,
  row: R,
  front: readonly R[],
  mode: ChampionMode,
  margin: LadderMargin,
  identity: ChampionIdentity,
): Pick<ChampionState<R>, 'champion' | 'ladderRecorded' | 'ladderDecision'> {
  const key = compareKeyFor(mode);
  const candidate = mode === 'band-decisions' ? frontChampion(front, key) : row;
  const recorded = state.ladderRecorded ?? null;
  if (isChampion(candidate, state.champion, identity)) {
    return { champion: state.champion, ladderRecorded: recorded, ladderDecision: null };
  }
  const block = comparedBlock(candidate, key) as Counts & Partial<ClassTotals>;
  const totals = { fail_count: block.fail_count ?? 0, pass_count: block.pass_count ?? 0 };
  const decision = ladderDecision(block, state.champion === null ? null : recorded, margin, totals);
  return decision.promote
    ? { champion: candidate, ladderRecorded: decision.recorded, ladderDecision: decision }
    : { champion: state.champion, ladderRecorded: recorded, ladderDecision: decision };
}

/**
 * `champion_rule: paired`: the would-be champion (the row, or under band decisions the front's
 * best) takes over only when the paired rule accepts it against the champion, item by item on
 * their `item_errors` records where the two can be paired, else by dominance (paired-fold.ts).
 */
function pairedStep<R extends TestEvalRow & { readonly item_errors?: ItemErrors }>(
  state: ChampionState<R>,
  row: R,
  front: readonly R[],
  mode: ChampionMode,
  alpha: number,
  identity: ChampionIdentity,
): Pick<ChampionState<R>, 'champion' | 'pairedJudgement'> {
  const key = compareKeyFor(mode);
  const candidate = mode === 'band-decisions' ? frontChampion(front, key) : row;
  if (isChampion(candidate, state.champion, identity)) {
    return { champion: state.champion, pairedJudgement: null };
  }
  const side = (of: R) => ({ counts: comparedBlock(of, key), errors: of.item_errors });
  const judgement = pairedJudgement(side(candidate), state.champion === null ? null : side(state.champion), alpha);
  return { champion: judgement.promote ? candidate : state.champion, pairedJudgement: judgement };
}

/**
 * Folds one eval row in; rows that do not compete (other role, failed, other generation, no block)
 * change nothing. `rule` set (a number: a ladder margin, the older call): loop.yaml's
 * `champion_rule` other than dominance decides champions. A champion that stays is kept as the
 * state's own row (`identity`: its run and checkpoint, the same after continue-as-new or a resume).
 */
export function applyTestEval<R extends TestEvalRow & { readonly item_errors?: ItemErrors }>(
  state: ChampionState<R>,
  row: R,
  mode: ChampionMode,
  rule?: LadderMargin | ChampionRuleSetting,
  identity: ChampionIdentity = 'checkpoint',
): ChampionState<R> {
  const setting: ChampionRuleSetting | undefined = typeof rule === 'number' ? { rule: 'ladder', margin: rule } : rule;
  const key = compareKeyFor(mode);
  if (row.role !== 'test' || row.status !== 'ok' || row.generation !== state.generation) {
    return state;
  }
  // Evaluated before the band existed: not comparable, and not counted towards saturation.
  if (row[key] === null || row[key] === undefined) {
    return state;
  }
  const front = incrementalParetoFront(state.front, row, key);
  if (setting?.rule === 'ladder') {
    const step = ladderStep(state, row, front, mode, setting.margin, identity);
    return { generation: state.generation, front, testEvals: state.testEvals + 1, ...step };
  }
  if (setting?.rule === 'paired') {
    const step = pairedStep(state, row, front, mode, setting.alpha, identity);
    return { generation: state.generation, front, testEvals: state.testEvals + 1, ...step };
  }
  if (mode !== 'band-decisions') {
    const champion = nextChampionDefault(state.champion, row, key);
    return { generation: state.generation, champion, front, testEvals: state.testEvals + 1 };
  }
  const best = frontChampion(front, key);
  const champion = identity === 'checkpoint' && isChampion(best, state.champion, identity) ? state.champion : best;
  return { generation: state.generation, champion, front, testEvals: state.testEvals + 1 };
}
