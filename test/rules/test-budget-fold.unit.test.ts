import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLoopConfig } from '../../src/config/loop-config.js';
import {
  foldSettingsOf,
  initialLoopState,
  recordRow,
  TEST_BUDGET_SPENT_REASON,
  type FoldSettings,
  type LoopState,
} from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import type { EvalRow } from '../../src/rules/types.js';
import { evalRowOf } from '../helpers/eval-rows.js';
import { recordAll } from '../helpers/record-rows.js';

// loop.yaml `test_budget` in the fold (docs/behaviour.md, "Test-set budget"): reads past the
// budget change no champion and say so on their rows; `when_spent: advance` ends the generation.

const unbudgeted: FoldSettings = { mode: 'default', saturationEvals: 1000, maxReserveChecks: 3 };
const freeze = (reads: number): FoldSettings => ({ ...unbudgeted, testBudget: { reads, when_spent: 'freeze' } });
const advance = (reads: number): FoldSettings => ({ ...unbudgeted, testBudget: { reads, when_spent: 'advance' } });
const opened: LoopState = { ...initialLoopState(), generation: 1 };

const testEval = (runId: string, f2p: number, p2f: number): EvalRow =>
  evalRowOf(runId, 1, f2p, p2f, { role: 'test', failCount: 300, passCount: 700 });

const foldAll = (rows: readonly EvalRow[], settings: FoldSettings) => recordAll(rows, settings, opened);

const evalsOf = (rows: readonly LedgerRow[]) => rows.filter((row): row is EvalRow => row.type === 'eval');

describe('test_budget in the fold', () => {
  // Each row dominates the one before: without a budget every one is promoted.
  const improving = [testEval('a', 30, 40), testEval('b', 29, 39), testEval('c', 28, 38), testEval('d', 27, 37)];

  it('freeze: reads past the budget are counted, promote nothing and are marked spent', () => {
    expect(foldAll(improving, unbudgeted).state.champion?.run_id).toBe('d');
    const { state, out } = foldAll(improving, freeze(2));
    expect(state.champion?.run_id).toBe('b');
    expect(state.front.map((row) => row.run_id)).toEqual(['b']);
    expect(state.testEvals).toBe(4);
    expect(state.advanceReason).toBeNull();
    expect(evalsOf(out).map((row) => row.test_budget ?? null)).toEqual([null, null, 'spent', 'spent']);
    expect(out.filter((row) => row.type === 'champion')).toHaveLength(2);
  });

  it('advance: the read that spends the budget ends the generation; later reads promote nothing', () => {
    const { state, out } = foldAll(improving, advance(2));
    expect(state.advanceReason).toBe(TEST_BUDGET_SPENT_REASON);
    expect(state.champion?.run_id).toBe('b');
    expect(evalsOf(out).map((row) => row.test_budget ?? null)).toEqual([null, null, 'spent', 'spent']);
  });

  it('advance keeps an earlier reason: a failed reserve check is why the generation ends', () => {
    const failed = { ...opened, advanceReason: 'reserve_failed' };
    const recorded = recordRow(failed, testEval('a', 30, 40), advance(1));
    expect(recorded.state.advanceReason).toBe('reserve_failed');
  });

  it('reads that do not compete (other roles, failed evals) spend nothing', () => {
    const other = [
      evalRowOf('v', 1, 1, 1, { role: 'validation', failCount: 300, passCount: 700 }),
      { ...testEval('x', 1, 1), status: 'failed' as const, result: null },
    ];
    const { state, out } = foldAll([...other, ...improving.slice(0, 2)], advance(2));
    expect(state.testEvals).toBe(2);
    expect(state.champion?.run_id).toBe('b');
    expect(evalsOf(out).every((row) => row.test_budget === undefined)).toBe(true);
  });

  it('a new generation opens a fresh budget', () => {
    const { state } = foldAll(improving, freeze(1));
    const next = recordRow(
      state,
      {
        type: 'generation',
        event: 'advance',
        generation: 2,
        reason: 'requested',
        split_seed: 2,
        previous_champion: null,
        previous_pareto_set: [],
        started: '',
      },
      freeze(1),
    ).state;
    const promoted = recordRow(next, { ...testEval('e', 1, 1), generation: 2 }, freeze(1));
    expect(promoted.state.champion?.run_id).toBe('e');
    expect(promoted.rows[0]).not.toHaveProperty('test_budget');
  });

  it('under any budget the rows within it are judged exactly as without one', () => {
    const row = fc
      .tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 700 }))
      .map(([f2p, p2f]) => ({ f2p, p2f }));
    fc.assert(
      fc.property(fc.array(row, { minLength: 1, maxLength: 30 }), fc.integer({ min: 1, max: 40 }), (counts, reads) => {
        const rows = counts.map((count, index) => testEval(`r${index}`, count.f2p, count.p2f));
        const within = rows.slice(0, reads);
        const budgeted = foldAll(rows, freeze(reads));
        const plain = foldAll(within, unbudgeted);
        expect(budgeted.state.champion).toBe(plain.state.champion);
        expect(budgeted.state.front).toEqual(plain.state.front);
        expect(budgeted.state.testEvals).toBe(rows.length);
        const rowsWithin = budgeted.out.filter((out) => out.type !== 'eval' || within.includes(out));
        expect(rowsWithin).toEqual(plain.out);
      }),
    );
  });

  it('loop.yaml test_budget reaches the fold settings; absent, the settings are as before', () => {
    const base = 'data_root: d\ncandidates: c.yaml\nlanes: [{host: h, device: 0}]\n';
    expect(foldSettingsOf(parseLoopConfig(base, 'loop.yaml'))).not.toHaveProperty('testBudget');
    const set = parseLoopConfig(`${base}test_budget: {reads: 300}\n`, 'loop.yaml');
    expect(foldSettingsOf(set).testBudget).toEqual({ reads: 300, when_spent: 'freeze' });
    expect(() => parseLoopConfig(`${base}test_budget: {reads: 0}\n`, 'loop.yaml')).toThrow(/test_budget\.reads/);
    expect(() => parseLoopConfig(`${base}test_budget: {reads: 3, when_spent: stop}\n`, 'loop.yaml')).toThrow(
      /'freeze'.*or 'advance'/,
    );
    expect(() => parseLoopConfig(`${base}test_budget: 300\n`, 'loop.yaml')).toThrow(/\{reads, when_spent\?\}/);
  });
});
