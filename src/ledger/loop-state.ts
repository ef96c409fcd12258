import {
  applyTestEval,
  compareKeyFor,
  isChampion,
  type ChampionIdentity,
  type ChampionMode,
  type ChampionState,
} from '../rules/champion.js';
import { padGeneration } from '../rules/ids.js';
import { DEFAULT_LADDER_MARGIN } from '../rules/ladder-rule.js';
import { DEFAULT_PAIRED_ALPHA } from '../rules/paired-fold.js';
import { reserveVerdict } from '../rules/reserve-verdict.js';
import { evalSummary } from '../rules/summary.js';
import type { Decided, EvalRow, EvalSummary } from '../rules/types.js';
import type { ChampionRow, GenerationRow, LedgerRow, ParetoSetRow, ReserveCheckRow } from './rows.js';

// The loop's state as a fold over ledger rows (docs/behaviour.md, sections 5, 6 and 9).
// The generation workflow, the ledger exporter and `state --from-ledger` all fold with this.

/** The settings a fold depends on. */
export interface FoldSettings {
  readonly mode: ChampionMode;
  readonly saturationEvals: number;
  readonly maxReserveChecks: number;
  /** Set only under loop.yaml `champion_rule: ladder` (its `ladder_margin`): dominance otherwise. */
  readonly ladderMargin?: number;
  /** Set only under loop.yaml `champion_rule: paired` (its `alpha`): dominance otherwise. */
  readonly pairedAlpha?: number;
  /** Set only under loop.yaml `test_budget`: the test-set reads a generation may make, and what spending them does. */
  readonly testBudget?: TestBudget;
  /**
   * How a champion that stayed is told from a new one. Absent: by its run and checkpoint
   * (rules/champion.ts, sameChampion). `object` only to replay a generation run recorded before
   * patch champion-identity (workflows/patches.ts), whose code compared objects.
   */
  readonly championIdentity?: ChampionIdentity;
}

/** loop.yaml `test_budget`: reads per generation, then freeze promotions or advance (docs/behaviour.md, "Test-set budget"). */
export interface TestBudget {
  readonly reads: number;
  readonly when_spent: 'freeze' | 'advance';
}

/** The advance reason of a generation whose test-set budget ran out under `when_spent: advance`. */
export const TEST_BUDGET_SPENT_REASON = 'test_budget_spent';

/** The fold settings of a loop.yaml. */
export function foldSettingsOf(config: {
  band_decisions: boolean;
  saturation_evals: number;
  max_reserve_checks: number;
  // Absent in the configs of loops started before the rule existed: dominance.
  champion_rule?: string;
  ladder_margin?: number;
  alpha?: number;
  // Absent in the configs of loops started before the budget existed, and by default: none.
  test_budget?: TestBudget;
}): FoldSettings {
  const settings: FoldSettings = {
    mode: config.band_decisions ? 'band-decisions' : 'default',
    saturationEvals: config.saturation_evals,
    maxReserveChecks: config.max_reserve_checks,
    ...(config.test_budget ? { testBudget: config.test_budget } : {}),
  };
  if (config.champion_rule === 'ladder') {
    return { ...settings, ladderMargin: config.ladder_margin ?? DEFAULT_LADDER_MARGIN };
  }
  return config.champion_rule === 'paired'
    ? { ...settings, pairedAlpha: config.alpha ?? DEFAULT_PAIRED_ALPHA }
    : settings;
}

/** The loop's state (docs/behaviour.md, section 9), rebuilt from rows alone. */
export interface LoopState {
  readonly generation: number;
  readonly champion: EvalRow | null;
  readonly front: readonly EvalRow[];
  readonly testEvals: number;
  readonly checkedEvals: number;
  readonly reserveChecks: number;
  readonly advanceReason: string | null;
  /** Checkpoints of this generation already scored on reserve (`run_id/checkpoint_name`): reused, never re-recorded. */
  readonly reserveScored: readonly string[];
  /** Under `champion_rule: ladder` only: the champion's recorded counts, and the last test eval's decision. */
  readonly ladderRecorded?: ChampionState<EvalRow>['ladderRecorded'];
  readonly ladderDecision?: ChampionState<EvalRow>['ladderDecision'];
  /**
   * Under `champion_rule: paired` only: the last test eval's judgement. The champion's per-item
   * record needs no field of its own: it is the champion eval row's `item_errors`, carried with it.
   */
  readonly pairedJudgement?: ChampionState<EvalRow>['pairedJudgement'];
}

/** The seed's state.json, field for field. */
export interface StateJson {
  generation: number;
  split: string;
  champion: EvalSummary | null;
  pareto_set: EvalSummary[];
  test_evals: number;
  tests_since_reserve_check: number;
  reserve_checks: number;
  advance_reason: string | null;
  updated: string;
}

/** Before the first generation. */
export function initialLoopState(): LoopState {
  return {
    generation: 0,
    champion: null,
    front: [],
    testEvals: 0,
    checkedEvals: 0,
    reserveChecks: 0,
    advanceReason: null,
    reserveScored: [],
  };
}

/** Fold one row into the state (live and on replay). */
export function applyRow(state: LoopState, row: LedgerRow, settings: FoldSettings): LoopState {
  switch (row.type) {
    case 'generation':
      return { ...initialLoopState(), generation: row.generation };
    case 'eval':
      return applyEval(state, row, settings);
    case 'reserve_check':
      return row.generation === state.generation ? applyReserveCheck(state, row, settings) : state;
    default:
      return state;
  }
}

/** Whether the generation has made all the test-set reads its budget allows (never without a budget). */
function testBudgetSpent(state: Pick<LoopState, 'testEvals'>, settings: FoldSettings): boolean {
  return settings.testBudget !== undefined && state.testEvals >= settings.testBudget.reads;
}

function applyEval(state: LoopState, row: EvalRow, settings: FoldSettings): LoopState {
  if (row.role === 'reserve' && row.generation === state.generation) {
    const key = `${row.run_id}/${row.checkpoint_name}`;
    return state.reserveScored.includes(key) ? state : { ...state, reserveScored: [...state.reserveScored, key] };
  }
  const next = applyCompetingEval(state, row, settings);
  const budget = settings.testBudget;
  if (budget === undefined || next.testEvals === state.testEvals) return next;
  // A read past the spent budget is counted and changes nothing else: the champion, its front and
  // the rule's records stay as the last read within the budget left them.
  if (testBudgetSpent(state, settings)) {
    return {
      ...state,
      testEvals: next.testEvals,
      ...(state.ladderDecision === undefined ? {} : { ladderDecision: null }),
      ...(state.pairedJudgement === undefined ? {} : { pairedJudgement: null }),
    };
  }
  const spendsIt = next.testEvals >= budget.reads && budget.when_spent === 'advance' && next.advanceReason === null;
  return spendsIt ? { ...next, advanceReason: TEST_BUDGET_SPENT_REASON } : next;
}

const identityOf = (settings: FoldSettings): ChampionIdentity => settings.championIdentity ?? 'checkpoint';

function applyCompetingEval(state: LoopState, row: EvalRow, settings: FoldSettings): LoopState {
  if (settings.ladderMargin !== undefined) {
    const next = applyTestEval(
      {
        generation: state.generation,
        champion: state.champion,
        front: state.front,
        testEvals: state.testEvals,
        ladderRecorded: state.ladderRecorded ?? null,
      },
      row,
      settings.mode,
      settings.ladderMargin,
      identityOf(settings),
    );
    return {
      ...state,
      champion: next.champion,
      front: next.front,
      testEvals: next.testEvals,
      ladderRecorded: next.ladderRecorded ?? null,
      // Only a test eval that competed was judged: anything else leaves no decision behind.
      ladderDecision: next.testEvals === state.testEvals ? null : (next.ladderDecision ?? null),
    };
  }
  if (settings.pairedAlpha !== undefined) {
    const next = applyTestEval(
      { generation: state.generation, champion: state.champion, front: state.front, testEvals: state.testEvals },
      row,
      settings.mode,
      { rule: 'paired', alpha: settings.pairedAlpha },
      identityOf(settings),
    );
    return {
      ...state,
      champion: next.champion,
      front: next.front,
      testEvals: next.testEvals,
      // Only a test eval that competed was judged: anything else leaves no judgement behind.
      pairedJudgement: next.testEvals === state.testEvals ? null : (next.pairedJudgement ?? null),
    };
  }
  const next = applyTestEval(
    { generation: state.generation, champion: state.champion, front: state.front, testEvals: state.testEvals },
    row,
    settings.mode,
    undefined,
    identityOf(settings),
  );
  return { ...state, champion: next.champion, front: next.front, testEvals: next.testEvals };
}

function applyReserveCheck(state: LoopState, row: ReserveCheckRow, settings: FoldSettings): LoopState {
  if (row.stale_champion) return state;
  const checked = { ...state, checkedEvals: row.test_evals };
  if (row.status !== 'ok') return checked;
  const reserveChecks = state.reserveChecks + 1;
  const advanceReason =
    row.verdict === 'fail'
      ? 'reserve_failed'
      : reserveChecks >= settings.maxReserveChecks
        ? 'max_reserve_checks'
        : state.advanceReason;
  return { ...checked, reserveChecks, advanceReason };
}

/** What recording one row adds: the row itself and the champion / Pareto-set events it causes. */
export interface Recorded {
  readonly state: LoopState;
  readonly rows: LedgerRow[];
  /** Set when this row made a new champion: it goes to packaging. */
  readonly newChampion: EvalRow | null;
}

const frontKeys = (front: readonly EvalRow[]): string =>
  front.map((row) => `${row.run_id}\u0000${row.checkpoint_name}`).join('\u0001');

/** Record one row: fold it, then emit the champion and pareto_set rows it causes (docs/ledger.md). */
export function recordRow(state: LoopState, row: LedgerRow, settings: FoldSettings): Recorded {
  const next = applyRow(state, row, settings);
  // Under the Ladder or the paired rule an eval row keeps the decision it was judged by (absent
  // otherwise: seed rows).
  const competed = row.type === 'eval' && next.testEvals !== state.testEvals;
  const decision = next.ladderDecision ?? next.pairedJudgement;
  // A read past the spent budget says so on its row: it was not judged (absent otherwise: seed rows).
  const judged = !competed
    ? row
    : testBudgetSpent(state, settings)
      ? { ...row, test_budget: 'spent' as const }
      : decision
        ? { ...row, champion_rule: decision }
        : row;
  const rows: LedgerRow[] = [judged];
  if (row.type !== 'eval') return { state: next, rows, newChampion: null };
  let newChampion: EvalRow | null = null;
  // A champion row only when the champion changed: the same run and checkpoint is the same
  // champion, whichever object continue-as-new or a resume decoded it into.
  if (next.champion !== null && !isChampion(next.champion, state.champion, identityOf(settings))) {
    newChampion = next.champion;
    const championRow: ChampionRow = {
      type: 'champion',
      generation: newChampion.generation,
      previous: evalSummary(state.champion),
      champion: evalSummary(newChampion) as EvalSummary,
      finished: row.finished,
      ...(settings.ladderMargin !== undefined && next.ladderDecision
        ? {
            ladder: {
              margin: settings.ladderMargin,
              steps: next.ladderDecision.steps,
              recorded: next.ladderDecision.recorded,
            },
          }
        : {}),
      ...(settings.pairedAlpha !== undefined && next.pairedJudgement ? { paired: next.pairedJudgement } : {}),
    };
    rows.push(championRow);
  }
  if (frontKeys(next.front) !== frontKeys(state.front)) {
    const paretoRow: ParetoSetRow = {
      type: 'pareto_set',
      generation: next.generation,
      members: next.front.map((member) => evalSummary(member) as EvalSummary),
      finished: row.finished,
    };
    rows.push(paretoRow);
  }
  return { state: next, rows, newChampion };
}

/** Whether the champion is due for a reserve check (nothing stops it and enough test evals piled up). */
export function reserveDue(state: LoopState, settings: FoldSettings): boolean {
  return (
    state.advanceReason === null &&
    state.champion !== null &&
    state.testEvals - state.checkedEvals >= settings.saturationEvals
  );
}

/**
 * The reserve_check row for a champion scored on reserve (docs/behaviour.md, section 6):
 * `reserve` is the reserve eval row (status failed when the evaluator gave no report).
 */
export function reserveCheckRow(
  state: LoopState,
  champion: EvalRow,
  testEvals: number,
  reserve: EvalRow,
  settings: FoldSettings,
): ReserveCheckRow {
  const base = {
    type: 'reserve_check' as const,
    generation: champion.generation,
    run_id: champion.run_id,
    candidate: champion.candidate,
    checkpoint_name: champion.checkpoint_name,
    epoch: champion.epoch,
    test_evals: testEvals,
    test: champion.result,
    test_decided: champion.decided ?? null,
    compared: compareKeyFor(settings.mode),
    eval_json: reserve.eval_json,
    finished: reserve.finished,
    stale_champion:
      state.generation !== champion.generation ||
      state.champion === null ||
      state.champion.run_id !== champion.run_id ||
      state.champion.checkpoint_name !== champion.checkpoint_name,
  };
  if (reserve.status !== 'ok' || reserve.result === null) {
    return { ...base, status: 'failed', verdict: 'error', reserve: null, reserve_decided: null };
  }
  const withReserve = { ...base, reserve: reserve.result, reserve_decided: reserve.decided ?? null };
  const [test, held] =
    settings.mode === 'band-decisions' ? [champion.decided, reserve.decided] : [champion.result, reserve.result];
  if (!test || !held) {
    return { ...withReserve, status: 'failed', verdict: 'error' };
  }
  return { ...withReserve, status: 'ok', ...reserveVerdict(test, held) };
}

/** The generation row that opens generation `state.generation + 1`. */
export function generationRow(state: LoopState, reason: string, baseSeed: number, started: string): GenerationRow {
  const generation = state.generation + 1;
  return {
    type: 'generation',
    event: state.generation === 0 ? 'start' : 'advance',
    generation,
    reason,
    split_seed: baseSeed + generation,
    previous_champion: evalSummary(state.champion),
    previous_pareto_set: state.front.map((row) => evalSummary(row) as EvalSummary),
    started,
  };
}

/** The split file of a generation, where the loop builds it. */
function splitPath(stateDir: string, generation: number): string {
  return `${stateDir}/splits/gen-${padGeneration(generation)}.yaml`;
}

/**
 * Under band decisions, the counts the champion and the front were decided on: their eval rows'
 * `decided` blocks (after the reject band), the front's in `pareto_set` order. The summaries of
 * state.json carry the raw `result` only (the seed's format), so every surface that shows the
 * champion shows these beside them.
 */
export interface DecidedCounts {
  readonly champion: Decided | null;
  readonly pareto_set: readonly (Decided | null)[];
}

/** The decided counts of a state; undefined unless the loop decides on them (loop.yaml band_decisions). */
export function decidedCounts(state: LoopState, settings: Pick<FoldSettings, 'mode'>): DecidedCounts | undefined {
  if (settings.mode !== 'band-decisions') return undefined;
  return {
    champion: state.champion?.decided ?? null,
    pareto_set: state.front.map((row) => row.decided ?? null),
  };
}

/** The seed's state.json of a state. */
export function stateJson(state: LoopState, stateDir: string, updated: string): StateJson {
  return {
    generation: state.generation,
    split: splitPath(stateDir, state.generation),
    champion: evalSummary(state.champion),
    pareto_set: state.front.map((row) => evalSummary(row) as EvalSummary),
    test_evals: state.testEvals,
    tests_since_reserve_check: state.testEvals - state.checkedEvals,
    reserve_checks: state.reserveChecks,
    advance_reason: state.advanceReason,
    updated,
  };
}
