import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialLoopState, type FoldSettings, type LoopState } from '../../src/ledger/loop-state.js';
import type { ChampionRow, LedgerRow } from '../../src/ledger/rows.js';
import { dominates } from '../../src/rules/dominance.js';
import { itemErrorsOf, type ItemErrors } from '../../src/rules/item-errors.js';
import type { PairedJudgement } from '../../src/rules/paired-fold.js';
import type { EvalRow } from '../../src/rules/types.js';
import { recordAll } from '../helpers/record-rows.js';

const FAILS = 200;
const PASSES = 300;
const dominance: FoldSettings = { mode: 'default', saturationEvals: 3, maxReserveChecks: 3 };
const paired: FoldSettings = { ...dominance, pairedAlpha: 0.05 };
const opened: LoopState = { ...initialLoopState(), generation: 1 };

/** A record that got the first `f2p` fail items and the first `p2f` pass items wrong (shifted by `offset`). */
function errorsOf(f2p: number, p2f: number, offset = 0, items = 'test-items'): ItemErrors {
  const wrong = (index: number, count: number, size: number) => (index - offset + size) % size < count;
  const rows = [
    ...Array.from({ length: FAILS }, (_, i) => ({ margin: wrong(i, f2p, FAILS) ? 1 : -1, target: 0 as const })),
    ...Array.from({ length: PASSES }, (_, i) => ({ margin: wrong(i, p2f, PASSES) ? -1 : 1, target: 1 as const })),
  ];
  return itemErrorsOf(items, rows, null);
}

function evalRow(runId: string, f2p: number, p2f: number, errors: ItemErrors | null): EvalRow {
  return {
    type: 'eval',
    generation: 1,
    role: 'test',
    run_id: runId,
    candidate: runId,
    round: 1,
    checkpoint: `runs/${runId}/checkpoint-1.pt`,
    checkpoint_name: 'checkpoint-1.pt',
    checkpoint_sha256: null,
    epoch: 1,
    config_path: `configs/${runId}.yaml`,
    status: 'ok',
    validation: null,
    result: {
      fail_to_pass_count: f2p,
      fail_count: FAILS,
      fail_to_pass_rate: f2p / FAILS,
      pass_to_fail_count: p2f,
      pass_correct_count: PASSES - p2f,
      pass_count: PASSES,
      pass_to_fail_rate: p2f / PASSES,
      macro_f1: 0.9,
      s_f1: 0.9,
    },
    gate_auc: null,
    gate_curve: null,
    reject_band: null,
    decided: null,
    eval_json: `evals/${runId}/checkpoint-1.test.json`,
    finished: `2026-01-05T08:00:00Z`,
    ...(errors === null ? {} : { item_errors: errors }),
  };
}

const foldAll = (rows: readonly EvalRow[], settings: FoldSettings) => recordAll(rows, settings, opened);

const judgementOf = (out: readonly LedgerRow[], runId: string): PairedJudgement | undefined =>
  (out.find((row) => row.type === 'eval' && row.run_id === runId) as EvalRow | undefined)?.champion_rule as
    PairedJudgement | undefined;

describe('champion_rule: paired in the fold', () => {
  it('refuses a small gain that dominance promotes, and the eval row keeps the statistics', () => {
    // b gets 2 fewer fail items wrong, on the same items otherwise: 2 discordant items, p = 0.25.
    const rows = [evalRow('a', 30, 40, errorsOf(30, 40)), evalRow('b', 28, 40, errorsOf(28, 40))];
    expect(foldAll(rows, dominance).state.champion?.run_id).toBe('b');
    const { state, out } = foldAll(rows, paired);
    expect(state.champion?.run_id).toBe('a');
    expect(judgementOf(out, 'a')).toMatchObject({ paired: 'unavailable', reason: 'no champion yet', promote: true });
    expect(judgementOf(out, 'b')).toMatchObject({
      rule: 'paired',
      paired: 'ok',
      alpha: 0.05,
      dominates: true,
      promote: false,
      f2p: { champion_only: 2, challenger_only: 0, p_better: 0.25, better: false, worse: false },
      p2f: { champion_only: 0, challenger_only: 0, p_better: 1 },
    });
  });

  it('promotes a significant gain and puts the judgement on the champion row', () => {
    const rows = [evalRow('a', 30, 40, errorsOf(30, 40)), evalRow('b', 15, 40, errorsOf(15, 40))];
    const { state, out } = foldAll(rows, paired);
    expect(state.champion?.run_id).toBe('b');
    // The champion's record is the champion row's own: later evals are paired against it.
    expect(state.champion?.item_errors).toEqual(errorsOf(15, 40));
    const champions = out.filter((row): row is ChampionRow => row.type === 'champion');
    expect(champions[1]?.paired).toMatchObject({
      paired: 'ok',
      promote: true,
      f2p: { champion_only: 15, better: true },
    });
  });

  it('pairs item by item: the same count on other items is discordant both ways, evidence of nothing', () => {
    // Same counts as the champion on p2f, but on other items: 20 and 20 discordant, no evidence either way.
    const rows = [evalRow('a', 30, 40, errorsOf(30, 40)), evalRow('b', 10, 40, errorsOf(10, 40, 0))];
    const shifted = [rows[0] as EvalRow, evalRow('b', 10, 40, { ...errorsOf(10, 40), p2f: errorsOf(0, 40, 20).p2f })];
    expect(foldAll(rows, paired).state.champion?.run_id).toBe('b');
    const { out } = foldAll(shifted, paired);
    expect(judgementOf(out, 'b')).toMatchObject({
      paired: 'ok',
      p2f: { champion_only: 20, challenger_only: 20 },
      promote: true,
    });
  });

  it('falls back to dominance, saying why, when the records cannot be paired', () => {
    const noRecord = foldAll([evalRow('a', 30, 40, errorsOf(30, 40)), evalRow('b', 28, 40, null)], paired);
    expect(noRecord.state.champion?.run_id).toBe('b');
    expect(judgementOf(noRecord.out, 'b')).toEqual({
      rule: 'paired',
      alpha: 0.05,
      paired: 'unavailable',
      reason: 'the challenger has no per-item record',
      dominates: true,
      promote: true,
    });
    const otherItems = foldAll(
      [evalRow('a', 30, 40, errorsOf(30, 40)), evalRow('b', 28, 40, errorsOf(28, 40, 0, 'other-split'))],
      paired,
    );
    expect(judgementOf(otherItems.out, 'b')).toMatchObject({ paired: 'unavailable', reason: /different test items/ });
  });

  it('under band decisions judges the front’s best on its decided counts and decided errors', () => {
    const banded = (runId: string, f2p: number, p2f: number, offset = 0): EvalRow => {
      const row = evalRow(runId, 50, 50, { ...errorsOf(f2p, p2f, offset), block: 'decided' });
      return {
        ...row,
        decided: { ...row.result!, fail_to_pass_count: f2p, pass_to_fail_count: p2f, rejected_total: 5 },
      };
    };
    const bandPaired: FoldSettings = { ...paired, mode: 'band-decisions' };
    // b: fewer Fail->Pass, more Pass->Fail: the front's best, which band dominance takes, paired does not.
    const rows = [banded('a', 30, 40), banded('b', 10, 45, 0), banded('c', 5, 40)];
    expect(foldAll(rows.slice(0, 2), { ...dominance, mode: 'band-decisions' }).state.champion?.run_id).toBe('b');
    const { state, out } = foldAll(rows, bandPaired);
    expect(judgementOf(out, 'b')).toMatchObject({ paired: 'ok', dominates: false, promote: false });
    expect(judgementOf(out, 'c')).toMatchObject({
      paired: 'ok',
      dominates: true,
      promote: true,
      f2p: { champion_only: 25 },
    });
    expect(state.champion?.run_id).toBe('c');
  });

  it('never promotes what dominance would not, and promotes nothing paired that dominance refuses', () => {
    const count = fc.integer({ min: 0, max: 60 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(count, count, fc.integer({ min: 0, max: 50 })), { minLength: 1, maxLength: 10 }),
        (evals) => {
          const rows = evals.map(([f2p, p2f, offset], i) => evalRow(`r${i}`, f2p, p2f, errorsOf(f2p, p2f, offset)));
          const { out } = foldAll(rows, paired);
          let champion: EvalRow | null = null;
          for (const row of out) {
            if (row.type === 'champion') {
              const promoted = rows.find((each) => each.run_id === row.champion.run_id) as EvalRow;
              if (champion !== null) expect(dominates(promoted.result!, champion.result!)).toBe(true);
              champion = promoted;
            }
          }
          for (const row of out.filter((each): each is EvalRow => each.type === 'eval')) {
            expect(row.champion_rule?.rule).toBe('paired');
          }
        },
      ),
      { numRuns: 50 },
    );
  });
});
