import { describe, expect, it } from 'vitest';
import { describeGrowth, growthBetween, growthWords } from '../../bench/lib/growth-ratios.js';
import { rowsThroughEvals, syntheticLedger } from '../../bench/lib/synthetic-ledger.js';
import { foldRows } from '../../src/ledger/from-ledger.js';
import { rowTime } from '../../src/ledger/ledger-lines.js';
import type { FoldSettings } from '../../src/ledger/loop-state.js';

const settings: FoldSettings = { mode: 'default', saturationEvals: 200, maxReserveChecks: 3 };
const build = (evals: number, seed = 17) =>
  syntheticLedger({ evals, seed, stateDir: '/loop/state', runsRoot: '/loop/runs', settings, baseSeed: 1000 });

describe('growth ratios', () => {
  it('gives each step between sizes its ratio, the size ratio and the exponent', () => {
    const growths = growthBetween([
      { size: 5_000, value: 100 },
      { size: 500, value: 10 },
      { size: 50_000, value: 10_000 },
    ]);
    expect(growths.map((g) => [g.from, g.to])).toEqual([
      [500, 5_000],
      [5_000, 50_000],
    ]);
    expect(growths[0]?.ratio).toBeCloseTo(10);
    expect(growths[0]?.exponent).toBeCloseTo(1);
    expect(growths[1]?.ratio).toBeCloseTo(100);
    expect(growths[1]?.exponent).toBeCloseTo(2);
    expect(
      growthBetween([
        { size: 1, value: 0 },
        { size: 10, value: 5 },
      ])[0]?.exponent,
    ).toBeNull();
  });

  it('names flat, sublinear, linear and worse than linear, with slack for noise', () => {
    const words = (ratio: number) => growthWords({ from: 5_000, to: 50_000, ratio, sizeRatio: 10, exponent: null });
    expect(words(1.1)).toBe('flat');
    expect(words(4)).toBe('sublinear');
    expect(words(9)).toBe('linear');
    expect(words(12)).toBe('linear');
    expect(words(13)).toBe('worse than linear');
    expect(words(Number.NaN)).toBe('worse than linear');
    expect(
      describeGrowth(
        growthBetween([
          { size: 500, value: 1 },
          { size: 5_000, value: 30 },
        ]),
      ),
    ).toBe('5,000/500 30.00x (worse than linear)');
  });
});

describe('synthetic ledger', () => {
  it('holds the evaluations asked for, and every kind of row the loop writes', () => {
    const ledger = build(2_000);
    const evals = ledger.rows.filter((row) => row.type === 'eval');
    expect(ledger.evals).toBe(evals.length);
    expect(ledger.evals).toBeGreaterThanOrEqual(2_000);
    expect(ledger.evals).toBeLessThan(2_000 + 3);
    for (const kind of ['generation', 'run', 'eval', 'champion', 'pareto_set', 'reserve_check', 'package'])
      expect(ledger.counts[kind] ?? 0, kind).toBeGreaterThan(0);
    expect(evals.some((row) => row.role === 'reserve')).toBe(true);
    expect(ledger.rows.filter((row) => row.type === 'package').length).toBe(ledger.counts.package);
  });

  it('folds to the state it was built with: the state.json the loop would write', () => {
    const ledger = build(3_000);
    expect(foldRows(ledger.rows, settings)).toEqual(ledger.state);
    expect(ledger.state.generation).toBe(ledger.counts.generation);
  });

  it("keeps the generation's rows in time order, and is the same for the same seed", () => {
    const ledger = build(1_000);
    // Package rows are merged in by time as the export does; a launched row is recorded when its
    // command ends, so (as in a real ledger) those are not in order among themselves.
    const times = ledger.rows.filter((row) => row.type !== 'package').map(rowTime);
    expect(times).toEqual([...times].sort());
    expect(build(1_000).rows).toEqual(ledger.rows);
    expect(build(1_000, 18).rows).not.toEqual(ledger.rows);
  });

  it('cuts after the row that makes the evaluations so many', () => {
    const ledger = build(600);
    const cut = rowsThroughEvals(ledger.rows, 500);
    expect(ledger.rows.slice(0, cut).filter((row) => row.type === 'eval')).toHaveLength(500);
    expect(ledger.rows[cut - 1]?.type).toBe('eval');
    expect(rowsThroughEvals(ledger.rows, 10_000)).toBe(ledger.rows.length);
  });
});
