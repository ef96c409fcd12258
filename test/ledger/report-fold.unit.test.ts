import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { initialLoopState, recordRow, type FoldSettings, type LoopState } from '../../src/ledger/loop-state.js';
import { foldAdvance, foldReserveReport, foldRunReport } from '../../src/ledger/report-fold.js';
import type { LedgerRow, RunRow } from '../../src/ledger/rows.js';
import type { EvalRow } from '../../src/rules/types.js';
import { evalRowOf } from '../helpers/eval-rows.js';

const settings: FoldSettings = { mode: 'default', saturationEvals: 3, maxReserveChecks: 3 };
const opened: LoopState = { ...initialLoopState(), generation: 1 };

function evalRow(runId: string, epoch: number, f2p: number, p2f: number, role: EvalRow['role'] = 'test'): EvalRow {
  return evalRowOf(runId, epoch, f2p, p2f, { role });
}

const runRow = (runId: string): RunRow => ({
  type: 'run',
  generation: 1,
  round: 1,
  seed: 1,
  candidate: runId,
  run_id: runId,
  config_path: `configs/${runId}.yaml`,
  config_sha256: 'sha',
  status: 'trained',
  train_rc: 0,
  started: '2026-01-05T08:00:00Z',
  finished: '2026-01-05T08:01:00Z',
  epochs_run: 2,
  checkpoints: [],
  error: null,
});

/** The rows one by one through recordRow: what a report fold must equal. */
function byHand(state: LoopState, rows: readonly LedgerRow[]) {
  const out: LedgerRow[] = [];
  const champions: EvalRow[] = [];
  for (const row of rows) {
    const recorded = recordRow(state, row, settings);
    state = recorded.state;
    out.push(...recorded.rows);
    if (recorded.newChampion) champions.push(recorded.newChampion);
  }
  return { state, rows: out, newChampions: champions };
}

/** How a GPU lane admitted a job, as a report carries it. */
const admission = {
  worker: 'box-gpu0',
  physical_device: 0,
  slot: 7,
  need_mib: 11_264,
  admitted: '2026-01-05T08:00:02Z',
};

describe('foldRunReport', () => {
  it("puts a GPU lane's admission as the seed's dispatch rows around the run's rows, the state as without them", () => {
    const run = runRow('a');
    const evals = [evalRow('a', 1, 10, 20), { ...evalRow('a', 2, 8, 18), finished: '2026-01-05T08:03:00Z' }];
    const folded = foldRunReport(opened, { run, evals, admission }, settings);
    const plain = foldRunReport(opened, { run, evals }, settings);
    expect(folded.rows.slice(1, -1)).toEqual(plain.rows);
    expect(folded.state).toEqual(plain.state);
    expect(folded.newChampions).toEqual(plain.newChampions);
    const common = {
      type: 'dispatch',
      generation: 1,
      job: 'a',
      kind: 'Job',
      slot: 7,
      worker: 'box-gpu0',
      physical_device: 0,
      peak_usage: { gpu_mib: 11_264 },
      retained_usage: { gpu_mib: 0 },
    };
    expect(folded.rows[0]).toEqual({ ...common, event: 'reserved', time: '2026-01-05T08:00:02Z' });
    // Finished at the latest of its rows' times.
    expect(folded.rows.at(-1)).toEqual({ ...common, event: 'finished', time: '2026-01-05T08:03:00Z', error: null });
  });

  it("gives both dispatch rows the card's size the lane read, after the seed's fields (not a seed field)", () => {
    const folded = foldRunReport(
      opened,
      { run: runRow('a'), evals: [], admission: { ...admission, total_mib: 143_771 } },
      settings,
    );
    const dispatch = folded.rows.filter((row) => row.type === 'dispatch');
    expect(dispatch.map((row) => row.device_total_mib)).toEqual([143_771, 143_771]);
    expect(Object.keys(dispatch[1] ?? {}).at(-1)).toBe('device_total_mib');
    // A malformed size is left out, the rows kept.
    const bad = foldRunReport(
      opened,
      { run: runRow('a'), evals: [], admission: { ...admission, total_mib: 'x' } },
      settings,
    );
    expect(bad.rows.filter((row) => row.type === 'dispatch').map((row) => 'device_total_mib' in row)).toEqual([
      false,
      false,
    ]);
  });

  it('writes no dispatch rows for a malformed admission, or for a report without its run row (an evaluation-only retry)', () => {
    const run = runRow('a');
    for (const bad of [
      null,
      'box',
      { ...admission, slot: 1.5 },
      { ...admission, worker: 3 },
      { ...admission, need_mib: Number.NaN },
    ])
      expect(foldRunReport(opened, { run, evals: [], admission: bad }, settings).rows.map((row) => row.type)).toEqual([
        'run',
      ]);
    expect(
      foldRunReport(opened, { run: null, evals: [evalRow('a', 1, 10, 20)], admission }, settings).rows.some(
        (row) => row.type === 'dispatch',
      ),
    ).toBe(false);
  });

  it('records the run row, then each eval with the champion and pareto_set rows it causes', () => {
    const run = runRow('a');
    const [first, second] = [evalRow('a', 1, 10, 20), evalRow('a', 2, 8, 18)];
    const folded = foldRunReport(opened, { run, evals: [first, second] }, settings);
    expect(folded.rows.map((row) => row.type)).toEqual([
      'run',
      'eval',
      'champion',
      'pareto_set',
      'eval',
      'champion',
      'pareto_set',
    ]);
    expect(folded.newChampions).toEqual([first, second]);
    expect(folded.state.champion).toBe(second);
    expect(folded.state.testEvals).toBe(2);
  });

  it('records only the evals of a report without a run row (an ensemble scored on test)', () => {
    const folded = foldRunReport(opened, { run: null, evals: [evalRow('e', 1, 5, 5)] }, settings);
    expect(folded.rows[0]?.type).toBe('eval');
  });

  it('equals recording the rows one by one, for any evals', () => {
    const evals = fc.array(
      fc.tuple(
        fc.integer({ min: 0, max: 60 }),
        fc.integer({ min: 0, max: 240 }),
        fc.constantFrom<EvalRow['role']>('test', 'test', 'validation'),
      ),
      { maxLength: 12 },
    );
    fc.assert(
      fc.property(evals, evals, (before, report) => {
        const earlier = byHand(
          opened,
          before.map(([f2p, p2f, role], index) => evalRow('early', index + 1, f2p, p2f, role)),
        ).state;
        const rows = report.map(([f2p, p2f, role], index) => evalRow('late', index + 1, f2p, p2f, role));
        const run = runRow('late');
        expect(foldRunReport(earlier, { run, evals: rows }, settings)).toEqual(byHand(earlier, [run, ...rows]));
      }),
    );
  });
});

describe('foldReserveReport', () => {
  const champion = evalRow('a', 1, 10, 20);
  const withChampion = foldRunReport(opened, { run: null, evals: [champion] }, settings).state;
  const reserve = evalRow('a', 1, 11, 21, 'reserve');

  it('records the reserve eval and then the reserve_check judged against the champion', () => {
    const folded = foldReserveReport(withChampion, { champion, testEvals: 1, reserve }, settings);
    expect(folded.rows.map((row) => row.type)).toEqual(['eval', 'reserve_check']);
    expect(folded.rows[1]).toMatchObject({
      run_id: 'a',
      checkpoint_name: 'checkpoint-1.pt',
      test_evals: 1,
      status: 'ok',
      stale_champion: false,
      verdict: 'pass',
    });
    expect(folded.state.reserveScored).toEqual(['a/checkpoint-1.pt']);
    expect(folded.state.reserveChecks).toBe(1);
    expect(folded.newChampions).toEqual([]);
  });

  it("puts a GPU lane's admission of the reserve evaluator as ReserveJob dispatch rows around the check, the state as without them", () => {
    const folded = foldReserveReport(withChampion, { champion, testEvals: 4, reserve, admission }, settings);
    const plain = foldReserveReport(withChampion, { champion, testEvals: 4, reserve }, settings);
    expect(folded.rows.map((row) => `${row.type}${row.type === 'dispatch' ? ` ${row.event}` : ''}`)).toEqual([
      'dispatch reserved',
      'eval',
      'reserve_check',
      'dispatch finished',
    ]);
    expect(folded.rows[0]).toMatchObject({ job: 'reserve-a-checkpoint-1.pt-n4', kind: 'ReserveJob', slot: 7 });
    expect(folded.rows.filter((row) => row.type !== 'dispatch')).toEqual(plain.rows);
    expect(folded.state).toEqual(plain.state);
    // A malformed admission (sent by hand) writes none.
    const bad = foldReserveReport(
      withChampion,
      { champion, testEvals: 4, reserve, admission: { slot: 'x' } },
      settings,
    );
    expect(bad.rows).toEqual(plain.rows);
  });

  it('does not record a checkpoint already scored on reserve in this generation a second time', () => {
    const once = foldReserveReport(withChampion, { champion, testEvals: 1, reserve }, settings).state;
    const again = foldReserveReport(once, { champion, testEvals: 2, reserve }, settings);
    expect(again.rows.map((row) => row.type)).toEqual(['reserve_check']);
    expect(again.state.reserveChecks).toBe(2);
  });

  it('marks the check stale when the champion changed while it ran, and then changes nothing', () => {
    const newer = evalRow('b', 1, 1, 1);
    const moved = foldRunReport(withChampion, { run: null, evals: [newer] }, settings).state;
    const folded = foldReserveReport(moved, { champion, testEvals: 1, reserve }, settings);
    expect(folded.rows[1]).toMatchObject({ stale_champion: true });
    expect(folded.state.reserveChecks).toBe(0);
    expect(folded.state.champion).toBe(newer);
  });

  it('fails the champion that is worse on reserve, and the generation is to advance', () => {
    const worse = {
      ...reserve,
      result: {
        ...(reserve.result as NonNullable<EvalRow['result']>),
        fail_to_pass_count: 40,
        fail_to_pass_rate: 40 / 60,
      },
    };
    const folded = foldReserveReport(withChampion, { champion, testEvals: 1, reserve: worse }, settings);
    expect(folded.rows[1]).toMatchObject({ verdict: 'fail' });
    expect(folded.state.advanceReason).toBe('reserve_failed');
  });

  it('judges decided counts with no fail or no pass item under band decisions instead of throwing', () => {
    const bands: FoldSettings = { ...settings, mode: 'band-decisions' };
    const decided = (f2p: number, fails: number, p2f: number, passes: number) => ({
      fail_to_pass_count: f2p,
      fail_count: fails,
      pass_to_fail_count: p2f,
      pass_correct_count: passes - p2f,
      pass_count: passes,
      rejected_total: 60 - fails + 240 - passes,
    });
    const banded = { ...champion, decided: decided(0, 0, 5, 200) };
    const state = foldRunReport(opened, { run: null, evals: [banded] }, bands).state;
    const held = foldReserveReport(
      state,
      { champion: banded, testEvals: 1, reserve: { ...reserve, decided: decided(0, 0, 6, 210) } },
      bands,
    );
    expect(held.rows[1]).toMatchObject({ status: 'ok', compared: 'decided', f2p_z: 0, f2p_p: 1, verdict: 'pass' });
    expect(held.state.reserveChecks).toBe(1);
    const worse = foldReserveReport(
      state,
      { champion: banded, testEvals: 1, reserve: { ...reserve, decided: decided(4, 30, 60, 200) } },
      bands,
    );
    expect(worse.rows[1]).toMatchObject({ status: 'ok', f2p_z: 0, f2p_p: 1, verdict: 'fail' });
    expect(worse.state.advanceReason).toBe('reserve_failed');
    const noPasses = { ...champion, decided: decided(2, 50, 0, 0) };
    const passless = foldRunReport(opened, { run: null, evals: [noPasses] }, bands).state;
    const judged = foldReserveReport(
      passless,
      { champion: noPasses, testEvals: 1, reserve: { ...reserve, decided: decided(2, 50, 0, 0) } },
      bands,
    );
    expect(judged.rows[1]).toMatchObject({ status: 'ok', p2f_z: 0, p2f_p: 1, verdict: 'pass' });
  });
});

describe('foldAdvance', () => {
  it("sets the advance reason, 'requested' when none is given", () => {
    expect(foldAdvance(opened, 'corpus relabelled').advanceReason).toBe('corpus relabelled');
    expect(foldAdvance(opened, '').advanceReason).toBe('requested');
    expect(foldAdvance(opened, 'x')).toEqual({ ...opened, advanceReason: 'x' });
  });
});
