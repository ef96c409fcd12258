import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  applyTestEval,
  compareKeyFor,
  frontChampion,
  nextChampionDefault,
  openChampionState,
} from '../../src/rules/champion.js';
import type { ChampionMode, ChampionState } from '../../src/rules/champion.js';
import { dominates } from '../../src/rules/dominance.js';
import { paretoFront } from '../../src/rules/pareto.js';
import type { Compared, Role } from '../../src/rules/types.js';

interface Row {
  readonly id: number;
  readonly generation: number;
  readonly role: Role;
  readonly status: 'ok' | 'failed';
  readonly finished: string;
  readonly result: Compared | null;
  readonly decided: Compared | null;
}

const block = (f2p: number, p2f: number, rejected?: number | null): Compared =>
  rejected === undefined
    ? { fail_to_pass_count: f2p, pass_to_fail_count: p2f }
    : { fail_to_pass_count: f2p, pass_to_fail_count: p2f, rejected_total: rejected };

const row = (id: number, result: Compared | null, extra: Partial<Row> = {}): Row => ({
  id,
  generation: 1,
  role: 'test',
  status: 'ok',
  finished: `2026-10-01T00:00:${String(id).padStart(2, '0')}`,
  result,
  decided: result,
  ...extra,
});

const banded = (id: number, decided: Compared | null, finished?: string): Row =>
  row(id, block(9, 9), finished === undefined ? { decided } : { decided, finished });

const fold = (rows: readonly Row[], mode: ChampionMode, generation = 1): ChampionState<Row> =>
  rows.reduce((state, next) => applyTestEval(state, next, mode), openChampionState<Row>(generation));

const ids = (rows: readonly Row[]): number[] => rows.map((r) => r.id);

// Few distinct values, so ties, trade-offs and dominance all occur often.
const arbitraryRows = fc
  .array(
    fc.record({
      f2p: fc.nat({ max: 3 }),
      p2f: fc.nat({ max: 3 }),
      rejected: fc.option(fc.nat({ max: 2 }), { nil: undefined }),
      finished: fc.nat({ max: 3 }),
      withDecided: fc.boolean(),
      generation: fc.constantFrom(1, 1, 1, 2),
      role: fc.constantFrom<Role>('test', 'test', 'test', 'reserve', 'validation'),
      status: fc.constantFrom<'ok' | 'failed'>('ok', 'ok', 'ok', 'failed'),
    }),
    { maxLength: 30 },
  )
  .map((drawn) =>
    drawn.map((d, id) =>
      row(id, block(d.f2p, d.p2f), {
        decided: d.withDecided ? block(d.f2p, d.p2f, d.rejected) : null,
        finished: `t${d.finished}`,
        generation: d.generation,
        role: d.role,
        status: d.status,
      }),
    ),
  );

const competing = (rows: readonly Row[], mode: ChampionMode): Row[] =>
  rows.filter((r) => r.role === 'test' && r.status === 'ok' && r.generation === 1 && r[compareKeyFor(mode)] !== null);

const lexicographicMin = (rows: readonly Row[]): Row | undefined => {
  const order = (r: Row): [number, number, number, string] => {
    const d = r.decided;
    if (d === null) {
      throw new Error('test row without decided block');
    }
    return [d.fail_to_pass_count, d.pass_to_fail_count, d.rejected_total ?? 0, r.finished];
  };
  // A stable sort keeps the earliest of equal rows first.
  return [...rows].sort((a, b) => {
    const [x, y] = [order(a), order(b)];
    for (let i = 0; i < 4; i += 1) {
      if (x[i] !== y[i]) {
        return (x[i] ?? 0) < (y[i] ?? 0) ? -1 : 1;
      }
    }
    return 0;
  })[0];
};

describe('compareKeyFor', () => {
  it('compares on result by default and on decided under band decisions', () => {
    expect(compareKeyFor('default')).toBe('result');
    expect(compareKeyFor('band-decisions')).toBe('decided');
  });
});

describe('nextChampionDefault', () => {
  it('makes the first row the champion', () => {
    const first = row(0, block(5, 5));
    expect(nextChampionDefault(null, first)).toBe(first);
  });

  it('replaces the champion with a row that dominates it', () => {
    const champion = row(0, block(5, 5));
    const better = row(1, block(5, 4));
    expect(nextChampionDefault(champion, better)).toBe(better);
  });

  it('keeps the champion against a tie or a trade-off', () => {
    const champion = row(0, block(5, 5));
    expect(nextChampionDefault(champion, row(1, block(5, 5)))).toBe(champion);
    expect(nextChampionDefault(champion, row(2, block(1, 6)))).toBe(champion);
  });

  it('compares on the block the key names', () => {
    const champion = row(0, block(5, 5), { decided: block(1, 1) });
    const challenger = row(1, block(4, 4), { decided: block(2, 2) });
    expect(nextChampionDefault(champion, challenger, 'result')).toBe(challenger);
    expect(nextChampionDefault(champion, challenger, 'decided')).toBe(champion);
  });
});

describe('frontChampion', () => {
  it('prefers the fewest Fail->Pass over everything else', () => {
    const front = [banded(0, block(3, 1, 0)), banded(1, block(2, 7, 9))];
    expect(frontChampion(front, 'decided').id).toBe(1);
  });

  it('breaks a Fail->Pass tie by the fewest Pass->Fail', () => {
    const front = [banded(0, block(2, 5, 0)), banded(1, block(2, 4, 9))];
    expect(frontChampion(front, 'decided').id).toBe(1);
  });

  it('breaks a count tie by the fewest rejections, an absent or null total counting as 0', () => {
    expect(frontChampion([banded(0, block(2, 4, 3)), banded(1, block(2, 4, 1))], 'decided').id).toBe(1);
    expect(frontChampion([banded(0, block(2, 4, 1)), banded(1, block(2, 4))], 'decided').id).toBe(1);
    expect(frontChampion([banded(0, block(2, 4, 1)), banded(1, block(2, 4, null))], 'decided').id).toBe(1);
    expect(frontChampion([banded(0, block(2, 4)), banded(1, block(2, 4, 0))], 'decided').id).toBe(0);
  });

  it('breaks a full tie by the earliest finish time', () => {
    const front = [banded(0, block(2, 4, 1), 't9'), banded(1, block(2, 4, 1), 't3')];
    expect(frontChampion(front, 'decided').id).toBe(1);
  });

  it('gives an exact tie to the earliest row of the front', () => {
    const front = [banded(0, block(2, 4, 1), 't3'), banded(1, block(2, 4, 1), 't3')];
    expect(frontChampion(front, 'decided').id).toBe(0);
  });

  it('refuses an empty front', () => {
    expect(() => frontChampion([], 'decided')).toThrow(/empty front/);
  });
});

describe('applyTestEval', () => {
  it('counts an ok test eval of the generation and puts it on the front', () => {
    const first = row(0, block(3, 3));
    const state = applyTestEval(openChampionState<Row>(1), first, 'default');
    expect(state).toEqual({ generation: 1, champion: first, front: [first], testEvals: 1 });
  });

  it('ignores other roles, failed evals and other generations', () => {
    const start = fold([row(0, block(3, 3))], 'default');
    for (const ignored of [
      row(1, block(0, 0), { role: 'reserve' }),
      row(2, block(0, 0), { role: 'validation' }),
      row(3, block(0, 0), { status: 'failed' }),
      row(4, block(0, 0), { generation: 2 }),
    ]) {
      expect(applyTestEval(start, ignored, 'default')).toBe(start);
      expect(applyTestEval(start, ignored, 'band-decisions')).toBe(start);
    }
  });

  it('skips a row without the compared block and does not count it', () => {
    const start = fold([row(0, block(3, 3))], 'band-decisions');
    expect(applyTestEval(start, banded(1, null), 'band-decisions')).toBe(start);
    expect(applyTestEval(start, row(2, null, { decided: block(0, 0) }), 'default')).toBe(start);
  });

  it('keeps the first champion in default mode until a row dominates it', () => {
    const rows = [row(0, block(5, 1)), row(1, block(1, 5)), row(2, block(5, 1)), row(3, block(4, 1))];
    expect(fold(rows.slice(0, 3), 'default').champion?.id).toBe(0);
    const state = fold(rows, 'default');
    expect(state.champion?.id).toBe(3);
    expect(ids(state.front)).toEqual([1, 3]);
    expect(state.testEvals).toBe(4);
  });

  it('picks the lexicographic best of the decided front under band decisions', () => {
    const rows = [banded(0, block(5, 1)), banded(1, block(1, 5)), banded(2, block(1, 5, 2))];
    const state = fold(rows, 'band-decisions');
    expect(state.champion?.id).toBe(1);
    expect(ids(state.front)).toEqual([0, 1, 2]);
  });

  it('does not, in default mode, necessarily pick the lexicographic best of the front', () => {
    const state = fold([row(0, block(5, 1)), row(1, block(1, 5))], 'default');
    expect(state.champion?.id).toBe(0);
    expect(fold([row(0, block(5, 1)), row(1, block(1, 5))], 'band-decisions').champion?.id).toBe(1);
  });

  it('in default mode leaves a champion that no competing eval dominates, which is therefore on the front', () => {
    fc.assert(
      fc.property(arbitraryRows, (rows) => {
        const state = fold(rows, 'default');
        const evals = competing(rows, 'default');
        if (evals.length === 0) {
          expect(state.champion).toBeNull();
          return;
        }
        const champion = state.champion;
        expect(champion).not.toBeNull();
        if (champion === null || champion.result === null) {
          return;
        }
        for (const other of evals) {
          if (other.result !== null) {
            expect(dominates(other.result, champion.result)).toBe(false);
          }
        }
        expect(state.front).toContain(champion);
      }),
    );
  });

  it('in default mode changes the champion exactly when a competing row dominates it', () => {
    fc.assert(
      fc.property(arbitraryRows, (rows) => {
        let state = openChampionState<Row>(1);
        for (const next of rows) {
          const before = state.champion;
          state = applyTestEval(state, next, 'default');
          const competes = competing([next], 'default').length === 1;
          const expected =
            competes &&
            (before === null ||
              (next.result !== null && before.result !== null && dominates(next.result, before.result)))
              ? next
              : before;
          expect(state.champion).toBe(expected);
        }
      }),
    );
  });

  it('under band decisions leaves the lexicographic minimum of the full decided front', () => {
    fc.assert(
      fc.property(arbitraryRows, (rows) => {
        const state = fold(rows, 'band-decisions');
        const evals = competing(rows, 'band-decisions');
        const front = paretoFront(evals, 'decided');
        expect(ids(state.front)).toEqual(ids(front));
        expect(state.champion ?? undefined).toBe(lexicographicMin(front));
      }),
    );
  });

  it('counts exactly the competing evals and keeps the full front of them', () => {
    fc.assert(
      fc.property(arbitraryRows, fc.constantFrom<ChampionMode>('default', 'band-decisions'), (rows, mode) => {
        const state = fold(rows, mode);
        const evals = competing(rows, mode);
        expect(state.testEvals).toBe(evals.length);
        expect(ids(state.front)).toEqual(ids(paretoFront(evals, compareKeyFor(mode))));
      }),
    );
  });
});
