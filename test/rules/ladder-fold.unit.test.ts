import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseLoopConfig } from '../../src/config/loop-config.js';
import { foldSettingsOf, initialLoopState, type FoldSettings, type LoopState } from '../../src/ledger/loop-state.js';
import type { ChampionRow } from '../../src/ledger/rows.js';
import type { LadderDecision } from '../../src/rules/ladder-rule.js';
import type { EvalRow } from '../../src/rules/types.js';
import { evalRowOf } from '../helpers/eval-rows.js';
import { recordAll } from '../helpers/record-rows.js';

const dominance: FoldSettings = { mode: 'default', saturationEvals: 3, maxReserveChecks: 3 };
const ladder: FoldSettings = { ...dominance, ladderMargin: 3 };
const opened: LoopState = { ...initialLoopState(), generation: 1 };

function evalRow(runId: string, epoch: number, f2p: number, p2f: number, role: EvalRow['role'] = 'test'): EvalRow {
  return evalRowOf(runId, epoch, f2p, p2f, { role, failCount: 300, passCount: 700 });
}

const foldAll = (rows: readonly EvalRow[], settings: FoldSettings) => recordAll(rows, settings, opened);

describe('champion_rule: ladder in the fold', () => {
  it('refuses a one-item gain that dominance promotes, and records why', () => {
    const rows = [evalRow('a', 1, 31, 40), evalRow('b', 1, 30, 40)];
    expect(foldAll(rows, dominance).state.champion?.run_id).toBe('b');
    const { state, out } = foldAll(rows, ladder);
    expect(state.champion?.run_id).toBe('a');
    const judged = out.filter((row): row is EvalRow => row.type === 'eval');
    // 31 -> 30 and 40 -> 39 on record (steps of 3): b is 1 better, needs 3.
    expect(judged[1]?.champion_rule).toMatchObject({
      rule: 'ladder',
      promote: false,
      steps: { f2p: 3, p2f: 3 },
      against: { fail_to_pass_count: 30, pass_to_fail_count: 39 },
    });
  });

  it('promotes a gain of a step and records the rounded counts on the champion row', () => {
    const { state, out } = foldAll([evalRow('a', 1, 31, 40), evalRow('b', 1, 26, 39)], ladder);
    expect(state.champion?.run_id).toBe('b');
    const champions = out.filter((row): row is ChampionRow => row.type === 'champion');
    expect(champions.map((row) => row.ladder)).toEqual([
      { margin: 3, steps: { f2p: 3, p2f: 3 }, recorded: { fail_to_pass_count: 30, pass_to_fail_count: 39 } },
      { margin: 3, steps: { f2p: 3, p2f: 3 }, recorded: { fail_to_pass_count: 27, pass_to_fail_count: 39 } },
    ]);
  });

  it('takes a fractional margin of each class', () => {
    const { out } = foldAll([evalRow('a', 1, 31, 40)], { ...dominance, ladderMargin: 0.01 });
    const [first] = out.filter((row): row is EvalRow => row.type === 'eval');
    expect((first?.champion_rule as LadderDecision | undefined)?.steps).toEqual({ f2p: 3, p2f: 7 });
  });

  it('leaves rows that do not compete unannotated', () => {
    const { out } = foldAll([evalRow('a', 1, 31, 40), evalRow('a', 1, 31, 40, 'reserve')], ladder);
    const reserve = out.find((row) => row.type === 'eval' && row.role === 'reserve') as EvalRow;
    expect(reserve.champion_rule).toBeUndefined();
  });

  it('under dominance writes exactly the rows it always did', () => {
    const count = fc.integer({ min: 0, max: 60 });
    fc.assert(
      fc.property(fc.array(fc.tuple(count, count), { minLength: 1, maxLength: 12 }), (pairs) => {
        const rows = pairs.map(([f2p, p2f], i) => evalRow(`r${i}`, 1, f2p, p2f));
        const { out } = foldAll(rows, dominance);
        for (const row of out) {
          expect(row).not.toHaveProperty('champion_rule');
          expect(row).not.toHaveProperty('ladder');
          expect(row).not.toHaveProperty('paired');
          expect(row).not.toHaveProperty('item_errors');
        }
        expect(out.filter((row) => row.type === 'eval')).toEqual(rows);
      }),
      { numRuns: 50 },
    );
  });

  it('never promotes what dominance against the recorded counts would not', () => {
    const count = fc.integer({ min: 0, max: 60 });
    fc.assert(
      fc.property(fc.array(fc.tuple(count, count), { minLength: 1, maxLength: 12 }), (pairs) => {
        const rows = pairs.map(([f2p, p2f], i) => evalRow(`r${i}`, 1, f2p, p2f));
        const { out } = foldAll(rows, ladder);
        const evals = out.filter((row): row is EvalRow => row.type === 'eval');
        for (const row of evals) {
          const decision = row.champion_rule as LadderDecision | undefined;
          if (decision?.promote && decision.against !== decision.recorded) {
            expect(row.result!.fail_to_pass_count).toBeLessThanOrEqual(decision.against.fail_to_pass_count);
            expect(row.result!.pass_to_fail_count).toBeLessThanOrEqual(decision.against.pass_to_fail_count);
          }
        }
      }),
      { numRuns: 50 },
    );
  });
});

describe('loop.yaml champion_rule', () => {
  const base = 'data_root: data\ncandidates: candidates.yaml\nlanes:\n  - {host: gpu-a, device: 0}\n';

  it('is absent by default, so a default config folds by dominance', () => {
    const config = parseLoopConfig(base, 'loop.yaml');
    expect(config).not.toHaveProperty('champion_rule');
    expect(foldSettingsOf(config)).toEqual({ mode: 'default', saturationEvals: 200, maxReserveChecks: 3 });
  });

  it('takes ladder with a margin, 1% when none is given', () => {
    expect(
      foldSettingsOf(parseLoopConfig(`${base}champion_rule: ladder\nladder_margin: 5\n`, 'loop.yaml')).ladderMargin,
    ).toBe(5);
    expect(foldSettingsOf(parseLoopConfig(`${base}champion_rule: ladder\n`, 'loop.yaml')).ladderMargin).toBe(0.01);
  });

  it('takes paired with an alpha, 0.05 when none is given', () => {
    expect(foldSettingsOf(parseLoopConfig(`${base}champion_rule: paired\nalpha: 0.01\n`, 'loop.yaml'))).toEqual({
      mode: 'default',
      saturationEvals: 200,
      maxReserveChecks: 3,
      pairedAlpha: 0.01,
    });
    expect(foldSettingsOf(parseLoopConfig(`${base}champion_rule: paired\n`, 'loop.yaml')).pairedAlpha).toBe(0.05);
  });

  it('refuses an unknown rule, an alpha outside (0, 1), and a margin that is neither items nor a fraction, saying what it takes', () => {
    expect(() => parseLoopConfig(`${base}champion_rule: best\n`, 'loop.yaml')).toThrow(
      /'dominance' \(the default\), 'ladder' or 'paired'/,
    );
    expect(() => parseLoopConfig(`${base}champion_rule: paired\nalpha: 1\n`, 'loop.yaml')).toThrow(
      /strictly between 0 and 1/,
    );
    expect(() => parseLoopConfig(`${base}champion_rule: ladder\nladder_margin: 1.5\n`, 'loop.yaml')).toThrow(
      /a whole number of items \(1 or more\) or a fraction/,
    );
  });
});
