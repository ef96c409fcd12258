import { describe, expect, it } from 'vitest';
import { foldRows } from '../../src/ledger/from-ledger.js';
import { generationRow, initialLoopState, type FoldSettings, type LoopState } from '../../src/ledger/loop-state.js';
import type { ChampionRow, LedgerRow } from '../../src/ledger/rows.js';
import {
  applyTestEval,
  isChampion,
  openChampionState,
  sameChampion,
  type ChampionState,
} from '../../src/rules/champion.js';
import type { EvalRow } from '../../src/rules/types.js';
import { evalRowOf } from '../helpers/eval-rows.js';
import { recordAll } from '../helpers/record-rows.js';

// A champion is one run and checkpoint (docs/behaviour.md, section 5): the same champion decoded
// into another object (continue-as-new, a resume, a carried ledger) is not a new champion, under
// every champion rule and in both comparison modes.

const RULES: Record<string, Partial<FoldSettings>> = {
  dominance: {},
  ladder: { ladderMargin: 1 },
  paired: { pairedAlpha: 0.05 },
};
const MODES = ['default', 'band-decisions'] as const;

const settingsOf = (rule: string, mode: (typeof MODES)[number]): FoldSettings => ({
  mode,
  saturationEvals: 1000,
  maxReserveChecks: 3,
  ...RULES[rule],
});

/** A test eval whose raw and band-adjusted counts differ, so each mode picks its own champions. */
function evalOf(index: number, f2p: number, p2f: number, decidedF2p: number, decidedP2f: number): EvalRow {
  return evalRowOf(`champ-g001-r${String(index).padStart(4, '0')}-c`, 1, f2p, p2f, {
    decided: {
      fail_to_pass_count: decidedF2p,
      pass_to_fail_count: decidedP2f,
      fail_count: 60,
      pass_count: 240,
      rejected_total: index % 3,
    },
    minute: `2026-01-05T08:${String(index).padStart(2, '0')}`,
  });
}

// Improvements, trade-offs (fronts of several members) and repeats of the counts of earlier rows.
const EVALS: readonly EvalRow[] = [
  evalOf(1, 12, 10, 9, 8),
  evalOf(2, 10, 12, 8, 9),
  evalOf(3, 11, 11, 9, 9),
  evalOf(4, 8, 9, 7, 7),
  evalOf(5, 9, 7, 6, 8),
  evalOf(6, 8, 9, 7, 7),
  evalOf(7, 5, 6, 4, 5),
  evalOf(8, 6, 5, 5, 4),
  evalOf(9, 5, 6, 4, 5),
  evalOf(10, 7, 7, 6, 6),
  evalOf(11, 3, 4, 2, 3),
  evalOf(12, 4, 3, 3, 2),
];

const opened: LoopState = { ...initialLoopState(), generation: 1 };
/** What continue-as-new, a resume or a ledger carried into a start does to the state: decoded anew. */
const decoded = (state: LoopState): LoopState => JSON.parse(JSON.stringify(state)) as LoopState;
const key = (row: { run_id: string; checkpoint_name: string } | null) =>
  row ? `${row.run_id}/${row.checkpoint_name}` : null;
const championRows = (rows: readonly LedgerRow[]) => rows.filter((row): row is ChampionRow => row.type === 'champion');
const changes = (rows: readonly LedgerRow[]) =>
  championRows(rows).map((row) => `${key(row.previous)} -> ${key(row.champion)}`);

/** Records the evals, handing the state over (decoded anew) after every `every` rows. */
function handedOver(settings: FoldSettings, every: number, from: LoopState = opened) {
  let state = from;
  const out: LedgerRow[] = [];
  EVALS.forEach((row, index) => {
    const recorded = recordAll([row], settings, state);
    out.push(...recorded.out);
    state = (index + 1) % every === 0 ? decoded(recorded.state) : recorded.state;
  });
  return { state, out };
}

describe('a champion is its run and checkpoint', () => {
  it('sameChampion compares run and checkpoint; rows without them (the rules’ own tests) as objects', () => {
    const a = evalOf(1, 1, 1, 1, 1);
    expect(sameChampion(a, { ...a })).toBe(true);
    expect(sameChampion(a, { ...a, checkpoint_name: 'checkpoint-2.pt' })).toBe(false);
    expect(sameChampion(a, { ...a, run_id: 'champ-g001-r0099-c' })).toBe(false);
    expect(sameChampion(a, null)).toBe(false);
    expect(sameChampion(null, null)).toBe(true);
    const bare = { result: null };
    expect(sameChampion(bare, { result: null })).toBe(false);
    expect(sameChampion(bare, bare)).toBe(true);
    expect(isChampion(a, { ...a }, 'object')).toBe(false);
    expect(isChampion(a, { ...a }, 'checkpoint')).toBe(true);
  });

  for (const rule of Object.keys(RULES)) {
    for (const mode of MODES) {
      describe(`${rule}, ${mode}`, () => {
        const settings = settingsOf(rule, mode);
        const straight = recordAll(EVALS, settings);

        it('writes a champion row only when the champion changes', () => {
          expect(championRows(straight.out).length).toBeGreaterThanOrEqual(2);
          for (const row of championRows(straight.out)) expect(key(row.previous)).not.toBe(key(row.champion));
        });

        it('writes the same rows however often the state is handed over (continue-as-new, resume)', () => {
          for (const every of [1, 2, 5]) {
            const over = handedOver(settings, every);
            expect(changes(over.out)).toEqual(changes(straight.out));
            expect(over.out).toEqual(straight.out);
            expect(key(over.state.champion)).toBe(key(straight.state.champion));
          }
        });

        it('goes on from a carried ledger (its rows folded, the state decoded into the start) as from its own state', () => {
          const half = recordAll(EVALS.slice(0, 6), settings);
          const lines = half.out.map((row) => JSON.parse(JSON.stringify(row)) as LedgerRow);
          const opening = generationRow(initialLoopState(), 'initial', 20260101, '2026-01-05T07:59:00Z');
          const carried = decoded(foldRows([opening, ...lines], settings));
          const rest = recordAll(EVALS.slice(6), settings, carried);
          const whole = recordAll(EVALS.slice(6), settings, half.state);
          expect(changes(rest.out)).toEqual(changes(whole.out));
          for (const row of championRows(rest.out)) expect(key(row.previous)).not.toBe(key(row.champion));
        });

        it('the rule keeps the state’s own champion object when it stays', () => {
          let state: ChampionState<EvalRow> = { ...openChampionState<EvalRow>(1), ladderRecorded: null };
          for (const row of EVALS) {
            const again = JSON.parse(JSON.stringify(state)) as typeof state;
            const next = applyTestEval(
              again,
              row,
              mode,
              rule === 'ladder' ? 1 : rule === 'paired' ? { rule: 'paired', alpha: 0.05 } : undefined,
            );
            if (sameChampion(next.champion, again.champion)) expect(next.champion).toBe(again.champion);
            state = next;
          }
        });
      });
    }
  }

  it('replaying a run of the code before the change (identity by object) still repeats, as it did', () => {
    const legacy: FoldSettings = { ...settingsOf('dominance', 'band-decisions'), championIdentity: 'object' };
    const over = handedOver(legacy, 1);
    const repeats = championRows(over.out).filter((row) => key(row.previous) === key(row.champion));
    expect(repeats.length).toBeGreaterThan(0);
    // The same code with the change writes none.
    const fixed = handedOver(settingsOf('dominance', 'band-decisions'), 1);
    expect(championRows(fixed.out).filter((row) => key(row.previous) === key(row.champion))).toEqual([]);
  });
});
