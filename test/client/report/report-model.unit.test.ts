import { describe, expect, it } from 'vitest';
import { reportModel } from '../../../src/client/report/report-model.js';
import type { LedgerRow } from '../../../src/ledger/rows.js';
import type { EvalRow } from '../../../src/rules/types.js';
import { seedLedgerRows } from './seed-ledger.js';

describe('the report model of a ledger', () => {
  const model = reportModel(seedLedgerRows(), 'result');
  const [first, second] = model.generations;

  it('groups rows by generation, oldest first, with how each generation opened', () => {
    expect(model.generations.map((g) => [g.generation, g.opening?.reason])).toEqual([
      [1, 'initial'],
      [2, 'reserve_failed'],
    ]);
    expect(first?.runs).toEqual({ trained: 2 });
    // The seed's rows carry no GPU time.
    expect(first?.gpu).toEqual({ seconds: 0, runs: 0, usd: 0, pricedRuns: 0 });
  });

  it("adds up the GPU time of each generation's training runs (rows from a GPU lane)", () => {
    const rows = seedLedgerRows().map((row, index) =>
      row.type === 'run' && row.generation === 2 ? { ...row, gpu_seconds: 1800 + index, gpu_peak_mib: 20998 } : row,
    );
    const runs = rows.filter((row) => row.type === 'run' && row.generation === 2);
    const [, withGpu] = reportModel(rows, 'result').generations;
    expect(withGpu?.gpu.runs).toBe(runs.length);
    expect(withGpu?.gpu.seconds).toBe(
      runs.reduce((sum, row) => sum + (row.type === 'run' ? (row.gpu_seconds ?? 0) : 0), 0),
    );
  });

  it('plots every ok test evaluation and counts the failed ones apart; reserve evals are not points', () => {
    expect(first?.points.map((p) => [p.key, p.counts.f2p, p.counts.p2f])).toEqual([
      ['champ-g001-r0001-base/checkpoint-0001.pt', 12, 20],
      ['champ-g001-r0001-base/checkpoint-0002.pt', 8, 25],
      ['champ-g001-r0001-wide/checkpoint-0002.pt', 7, 18],
    ]);
    expect(first?.unplotted).toBe(1);
    expect(second?.points).toHaveLength(4);
  });

  it("takes the front and champion from the generation's last pareto_set and champion rows", () => {
    expect(first?.front.map((p) => p.key)).toEqual(['champ-g001-r0001-wide/checkpoint-0002.pt']);
    expect(second?.front.map((p) => p.key)).toEqual([
      'champ-g002-r0001-wide/checkpoint-0002.pt',
      'champ-g002-r0001-base/checkpoint-0001.pt',
    ]);
    expect(second?.champion?.key).toBe('champ-g002-r0001-wide/checkpoint-0002.pt');
    expect(second?.champions.map((c) => [c.runId, c.counts?.f2p, c.reason])).toEqual([
      ['champ-g002-r0001-base', 9, 'the first champion of its generation'],
      ['champ-g002-r0001-wide', 6, expect.stringMatching(/^dominates the previous champion: Fail->Pass 9 -> 6, /)],
    ]);
  });

  it('keeps reserve checks with their p-values, verdicts and staleness', () => {
    expect(first?.reserveChecks.map((r) => [r.verdict, r.stale, r.f2pP !== undefined && r.f2pP < 0.01])).toEqual([
      ['fail', false, true],
    ]);
    expect(second?.reserveChecks.map((r) => [r.verdict, r.stale])).toEqual([['pass', true]]);
    expect(first?.packages.map((p) => p.event)).toEqual(['launched', 'finished']);
  });

  it('compares on decided counts in band-decision mode, and an eval without them is not a point', () => {
    const rows = seedLedgerRows().map((row): LedgerRow => {
      if (row.type !== 'eval' || row.result === null || row.checkpoint_name !== 'checkpoint-0002.pt') return row;
      return {
        ...row,
        decided: { ...row.result, fail_to_pass_count: 1, pass_to_fail_count: 2, rejected_total: 9 },
      } satisfies EvalRow;
    });
    const decided = reportModel(rows, 'decided');
    expect(decided.generations[0]?.points.map((p) => [p.counts.f2p, p.counts.p2f])).toEqual([
      [1, 2],
      [1, 2],
    ]);
    // `base` epoch 1 has no decided block: not plotted, and its front entry is dropped rather than mixed in.
    expect(decided.generations[0]?.unplotted).toBe(2);
    expect(decided.generations[1]?.front.map((p) => p.key)).toEqual(['champ-g002-r0001-wide/checkpoint-0002.pt']);
  });

  it('is empty for an empty ledger', () => {
    expect(reportModel([], 'result').generations).toEqual([]);
  });
});
