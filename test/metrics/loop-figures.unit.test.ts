import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { renderStatus } from '../../src/client/render-status.js';
import {
  foldSettingsOf,
  generationRow,
  initialLoopState,
  reserveCheckRow,
  stateJson,
  type LoopState,
} from '../../src/ledger/loop-state.js';
import type { LedgerRow, PackageRow, RunRow } from '../../src/ledger/rows.js';
import { LOOP_METRICS, type Sample } from '../../src/metrics/loop-metric-catalogue.js';
import {
  lastReserveCheck,
  reserveCheckFigures,
  rowCounts,
  stateFigures,
  viewFigures,
  zeroCounts,
} from '../../src/metrics/loop-figures.js';
import type { EvalRow } from '../../src/rules/types.js';
import type { LoopView } from '../../src/workflows/loop-view.js';
import { testReuse } from '../../src/rules/test-reuse.js';
import { evalRowOf } from '../helpers/eval-rows.js';
import { recordAll } from '../helpers/record-rows.js';

// The figures the loop's metrics take, from states the real folds produce (recordRow over rows).

const SETTINGS = { saturation_evals: 2, max_reserve_checks: 3, band_decisions: false };
const FOLD = foldSettingsOf(SETTINGS);

function evalRow(runId: string, epoch: number, f2p: number, p2f: number, role: EvalRow['role'] = 'test'): EvalRow {
  return evalRowOf(runId, epoch, f2p, p2f, { role });
}

const runRow = (runId: string, status: RunRow['status']): RunRow => ({
  type: 'run',
  generation: 1,
  round: 1,
  seed: 1,
  candidate: runId,
  run_id: runId,
  config_path: `configs/${runId}.yaml`,
  config_sha256: 'x',
  status,
  train_rc: status === 'trained' ? 0 : 1,
  started: '2026-01-05T07:00:00.000Z',
  finished: '2026-01-05T07:30:00.000Z',
  epochs_run: 2,
  checkpoints: [],
  error: null,
});

const packageRow = (event: PackageRow['event'], exitCode?: number): PackageRow => ({
  type: 'package',
  event,
  generation: 1,
  run_id: 'a',
  epoch: 1,
  checkpoint_name: 'checkpoint-1.pt',
  time: '2026-01-05T09:00:00.000Z',
  ...(exitCode === undefined ? {} : { exit_code: exitCode }),
});

/** Record rows one by one as the workflow does; every row written (with champion and pareto_set rows). */
function fold(
  rows: readonly LedgerRow[],
  from: LoopState = initialLoopState(),
): { state: LoopState; ledger: LedgerRow[] } {
  const { state, out } = recordAll(rows, FOLD, from);
  return { state, ledger: out };
}

const opened = fold([generationRow(initialLoopState(), 'start', 100, '2026-01-05T07:00:00.000Z')]);
/** Generation 1 with two incomparable checkpoints on the front; `a` (fewer fail-to-pass) leads. */
const twoOnFront = fold([evalRow('a', 1, 3, 9), evalRow('b', 1, 5, 2)], opened.state);

const valueOf = (samples: readonly Sample[], metric: Sample['metric'], labels: Record<string, string> = {}) =>
  samples.find((sample) => sample.metric === metric && JSON.stringify(sample.labels ?? {}) === JSON.stringify(labels))
    ?.value;

describe('the figures of the folded state', () => {
  it("equal what `status` prints: the champion's two error counts and rates, the front, test evals, reserve checks", () => {
    const json = stateJson(twoOnFront.state, '/state', '');
    const figures = stateFigures(json, SETTINGS);
    const printed = renderStatus({ ...json, ...emptyView() });
    const [, f2p, fails, p2f, passes] =
      /^champion: \S+ \S+ epoch=\d+ f2p=(\d+)\/(\d+) \([\d.]+%\) p2f=(\d+)\/(\d+)/m.exec(printed) ?? [
        undefined,
        'missing',
      ];
    expect(valueOf(figures, 'champion_loop_champion_errors', { error: 'fail_to_pass' })).toBe(Number(f2p));
    expect(valueOf(figures, 'champion_loop_champion_errors', { error: 'pass_to_fail' })).toBe(Number(p2f));
    expect(valueOf(figures, 'champion_loop_champion_error_ratio', { error: 'fail_to_pass' })).toBeCloseTo(
      Number(f2p) / Number(fails),
    );
    expect(valueOf(figures, 'champion_loop_champion_error_ratio', { error: 'pass_to_fail' })).toBeCloseTo(
      Number(p2f) / Number(passes),
    );
    expect(printed).toContain(`pareto set (${valueOf(figures, 'champion_loop_pareto_set_members')}):`);
    expect(valueOf(figures, 'champion_loop_pareto_set_members')).toBe(2);
    expect(printed).toContain(
      `test evals: ${valueOf(figures, 'champion_loop_test_evals')}; since the last reserve check: ${valueOf(figures, 'champion_loop_test_evals_since_reserve_check')}`,
    );
    expect(valueOf(figures, 'champion_loop_test_evals')).toBe(2);
    // The test set's reuse, as status prints it (rules/test-reuse.ts).
    const reuse = testReuse(json.test_evals, json.champion);
    expect(valueOf(figures, 'champion_loop_test_optimism_errors', { error: 'fail_to_pass' })).toBe(
      reuse?.fail_to_pass.optimism,
    );
    expect(valueOf(figures, 'champion_loop_test_optimism_errors', { error: 'pass_to_fail' })).toBe(
      reuse?.pass_to_fail.optimism,
    );
    expect(reuse?.fail_to_pass.optimism).toBeGreaterThan(0);
    expect(printed).toContain(
      `by up to about ${valueOf(figures, 'champion_loop_test_optimism_errors', { error: 'fail_to_pass' })} and ${valueOf(figures, 'champion_loop_test_optimism_errors', { error: 'pass_to_fail' })} `,
    );
    expect(valueOf(figures, 'champion_loop_generation')).toBe(1);
    expect(valueOf(figures, 'champion_loop_saturation_evals')).toBe(2);
    expect(valueOf(figures, 'champion_loop_max_reserve_checks')).toBe(3);
    expect(valueOf(figures, 'champion_loop_advancing')).toBe(0);
    expect(valueOf(figures, 'champion_loop_test_budget_reads')).toBeNaN();
    const budgeted = stateFigures(json, { ...SETTINGS, test_budget: { reads: 300 } });
    expect(valueOf(budgeted, 'champion_loop_test_budget_reads')).toBe(300);
  });

  it('read NaN for the champion counts while there is no champion, and 0 for the front', () => {
    const figures = stateFigures(stateJson(opened.state, '/state', ''), SETTINGS);
    expect(valueOf(figures, 'champion_loop_champion_errors', { error: 'fail_to_pass' })).toBeNaN();
    expect(valueOf(figures, 'champion_loop_champion_error_ratio', { error: 'pass_to_fail' })).toBeNaN();
    expect(valueOf(figures, 'champion_loop_pareto_set_members')).toBe(0);
  });

  it('count a reserve check, reset the evals since it, and mark a failed one as advancing', () => {
    const champion = twoOnFront.state.champion as EvalRow;
    const failing = reserveCheckRow(twoOnFront.state, champion, 2, evalRow('a', 1, 30, 90, 'reserve'), FOLD);
    expect(failing).toMatchObject({ status: 'ok', verdict: 'fail' });
    const checked = fold([failing], twoOnFront.state);
    const figures = stateFigures(stateJson(checked.state, '/state', ''), SETTINGS);
    expect(valueOf(figures, 'champion_loop_reserve_checks')).toBe(1);
    expect(valueOf(figures, 'champion_loop_test_evals_since_reserve_check')).toBe(0);
    expect(valueOf(figures, 'champion_loop_advancing')).toBe(1);
  });
});

describe('the counters of new rows', () => {
  it('count runs by status, evals by role and status, champions, reserve verdicts and package outcomes', () => {
    const champion = twoOnFront.state.champion as EvalRow;
    const passing = reserveCheckRow(twoOnFront.state, champion, 2, evalRow('a', 1, 3, 9, 'reserve'), FOLD);
    const stale = { ...passing, stale_champion: true };
    const rows: LedgerRow[] = [
      runRow('a', 'trained'),
      runRow('b', 'trained'),
      runRow('c', 'train_failed'),
      ...twoOnFront.ledger,
      { ...evalRow('c', 1, 1, 1), status: 'failed', result: null },
      evalRow('a', 1, 3, 9, 'reserve'),
      passing,
      stale,
      packageRow('launched'),
      packageRow('finished', 0),
      packageRow('finished', 2),
      packageRow('dropped'),
      packageRow('launch_failed'),
    ];
    const counts = rowCounts(rows);
    expect(valueOf(counts, 'champion_loop_runs_total', { status: 'trained' })).toBe(2);
    expect(valueOf(counts, 'champion_loop_runs_total', { status: 'train_failed' })).toBe(1);
    expect(valueOf(counts, 'champion_loop_evals_total', { role: 'test', status: 'ok' })).toBe(2);
    expect(valueOf(counts, 'champion_loop_evals_total', { role: 'test', status: 'failed' })).toBe(1);
    expect(valueOf(counts, 'champion_loop_evals_total', { role: 'reserve', status: 'ok' })).toBe(1);
    // Recording a then b made a the champion once (b joined the front without beating it).
    expect(valueOf(counts, 'champion_loop_champions_total')).toBe(1);
    // A stale check is not one the loop counts.
    expect(valueOf(counts, 'champion_loop_reserve_checks_total', { verdict: 'pass' })).toBe(1);
    for (const outcome of ['launched', 'succeeded', 'failed', 'dropped', 'launch_failed'])
      expect(valueOf(counts, 'champion_loop_packages_total', { outcome })).toBe(1);
    expect(rowCounts([])).toEqual([]);
  });

  it('start every counter label set at zero, and only counters', () => {
    const zeros = zeroCounts();
    expect(zeros.length).toBeGreaterThan(10);
    for (const sample of zeros) {
      expect(sample.value).toBe(0);
      expect(LOOP_METRICS[sample.metric].kind).toBe('counter');
    }
  });
});

describe('the last reserve check', () => {
  const champion = twoOnFront.state.champion as EvalRow;
  const passing = reserveCheckRow(twoOnFront.state, champion, 2, evalRow('a', 1, 3, 9, 'reserve'), FOLD);
  const failed = reserveCheckRow(
    twoOnFront.state,
    champion,
    2,
    { ...evalRow('a', 1, 0, 0, 'reserve'), status: 'failed' },
    FOLD,
  );

  it('is the latest one that is not stale', () => {
    expect(lastReserveCheck([passing, { ...failed, stale_champion: true }, runRow('x', 'trained')])).toBe(passing);
    expect(lastReserveCheck([runRow('x', 'trained')])).toBeNull();
  });

  it('gives both p-values, a 1 on its verdict and its time', () => {
    const figures = reserveCheckFigures(passing);
    expect(valueOf(figures, 'champion_loop_reserve_check_p_value', { direction: 'fail_to_pass' })).toBe(passing.f2p_p);
    expect(valueOf(figures, 'champion_loop_reserve_check_p_value', { direction: 'pass_to_fail' })).toBe(passing.p2f_p);
    expect(passing.f2p_p).toBeGreaterThan(0);
    expect(valueOf(figures, 'champion_loop_reserve_check_verdict', { verdict: 'pass' })).toBe(1);
    expect(valueOf(figures, 'champion_loop_reserve_check_verdict', { verdict: 'fail' })).toBe(0);
    expect(valueOf(figures, 'champion_loop_reserve_check_timestamp_seconds')).toBe(Date.parse(passing.finished) / 1000);
  });

  it('that could not run has no p-values and the verdict error', () => {
    const figures = reserveCheckFigures(failed);
    expect(valueOf(figures, 'champion_loop_reserve_check_p_value', { direction: 'fail_to_pass' })).toBeNaN();
    expect(valueOf(figures, 'champion_loop_reserve_check_verdict', { verdict: 'error' })).toBe(1);
  });
});

function emptyView(): Omit<LoopView, keyof ReturnType<typeof stateJson>> {
  return {
    loop_id: 'figures',
    round: 3,
    stopping: false,
    split_ready: true,
    queued: 4,
    in_flight: [
      { jobId: 'r1', kind: 'run', childId: 'c1', lane: 'box.0', since: '2026-01-05T08:00:00.000Z' },
      { jobId: 'r2', kind: 'run', childId: 'c2', lane: 'box.0', since: '2026-01-05T08:00:00.000Z' },
      { jobId: 'k1', kind: 'reserve', childId: 'c3', lane: 'box.1', since: '2026-01-05T08:00:00.000Z' },
    ],
    lanes: [
      { queue: 'box.0', slots: 2, busy: 2, down_until: null, idle_seconds: 90, watched_seconds: 3600 },
      {
        queue: 'box.1',
        slots: 2,
        busy: 1,
        down_until: '2026-01-05T09:00:00.000Z',
        draining_until: '2026-01-05T09:00:00.000Z',
      },
      {
        queue: 'box.2',
        slots: 1,
        busy: 0,
        down_until: '2026-01-05T07:00:00.000Z',
        draining_until: '2026-01-05T07:00:00.000Z',
      },
    ],
    training_gpu_seconds: { generation: 1800, loop: 7200.5 },
    training_gpu_usd: { generation: 1.5, loop: 6.25 },
    candidates: ['a', 'b'],
    candidates_error: null,
    split_error: null,
    idle: false,
  };
}

describe('the figures of the view', () => {
  const view: LoopView = { ...stateJson(twoOnFront.state, '/state', ''), ...emptyView() };
  const figures = viewFigures(view, Date.parse('2026-01-05T08:30:00.000Z'));

  it('count jobs queued and in flight by kind, as `status` prints them', () => {
    expect(renderStatus(view, undefined, new Date('2026-01-05T08:30:00.000Z'))).toContain('jobs: 3 running, 4 queued');
    expect(valueOf(figures, 'champion_loop_jobs_queued')).toBe(4);
    expect(valueOf(figures, 'champion_loop_jobs_in_flight', { kind: 'run' })).toBe(2);
    expect(valueOf(figures, 'champion_loop_jobs_in_flight', { kind: 'reserve' })).toBe(1);
    expect(valueOf(figures, 'champion_loop_jobs_in_flight', { kind: 'teacher' })).toBe(0);
    expect(valueOf(figures, 'champion_loop_round')).toBe(3);
    expect(valueOf(figures, 'champion_loop_idle')).toBe(0);
  });

  it("give each lane's slots, busy slots, busy fraction and whether it is down now", () => {
    expect(valueOf(figures, 'champion_loop_lane_busy_ratio', { lane: 'box.0' })).toBe(1);
    expect(valueOf(figures, 'champion_loop_lane_busy_ratio', { lane: 'box.1' })).toBe(0.5);
    expect(valueOf(figures, 'champion_loop_lane_busy_slots', { lane: 'box.1' })).toBe(1);
    expect(valueOf(figures, 'champion_loop_lane_slots', { lane: 'box.2' })).toBe(1);
    expect(valueOf(figures, 'champion_loop_lane_down', { lane: 'box.1' })).toBe(1);
    // Down until a time already past: up again.
    expect(valueOf(figures, 'champion_loop_lane_down', { lane: 'box.2' })).toBe(0);
  });

  it("say which lanes drain now, each lane's time without a job, and the training's GPU seconds", () => {
    expect(valueOf(figures, 'champion_loop_lane_draining', { lane: 'box.1' })).toBe(1);
    // A notice that ran out: not draining.
    expect(valueOf(figures, 'champion_loop_lane_draining', { lane: 'box.2' })).toBe(0);
    expect(valueOf(figures, 'champion_loop_lane_draining', { lane: 'box.0' })).toBe(0);
    expect(valueOf(figures, 'champion_loop_lane_idle_seconds', { lane: 'box.0' })).toBe(90);
    // A lane the view has no idle time for (an older worker) gets no sample.
    expect(figures.some((f) => f.metric === 'champion_loop_lane_idle_seconds' && f.labels?.lane === 'box.1')).toBe(
      false,
    );
    expect(valueOf(figures, 'champion_loop_training_gpu_seconds', { scope: 'generation' })).toBe(1800);
    expect(valueOf(figures, 'champion_loop_training_gpu_seconds', { scope: 'loop' })).toBe(7200.5);
    expect(valueOf(figures, 'champion_loop_training_gpu_usd', { scope: 'generation' })).toBe(1.5);
    expect(valueOf(figures, 'champion_loop_training_gpu_usd', { scope: 'loop' })).toBe(6.25);
  });
});

describe('the catalogue', () => {
  it("is the inspecting guide's table of loop metrics, name for name", async () => {
    const readme = await readFile(fileURLToPath(new URL('../../docs/inspecting.md', import.meta.url)), 'utf8');
    const section = readme.slice(
      readme.indexOf('## Loop metrics'),
      readme.indexOf('\n## ', readme.indexOf('## Loop metrics') + 1),
    );
    const listed = [...section.matchAll(/^\| `(champion_loop_\w+)` \| (gauge|counter) \|/gm)].map(
      ([, name, kind]) => `${name} ${kind}`,
    );
    expect(listed).toEqual(Object.entries(LOOP_METRICS).map(([name, spec]) => `${name} ${spec.kind}`));
  });

  it('follows the Prometheus conventions: one prefix, snake case, _total on counters only', () => {
    for (const [name, spec] of Object.entries(LOOP_METRICS)) {
      expect(name).toMatch(/^champion_loop_[a-z_]+$/);
      expect(name.endsWith('_total')).toBe(spec.kind === 'counter');
      expect(spec.labels).not.toContain('loop');
    }
  });

  it('has every label a figure uses', () => {
    const view: LoopView = { ...stateJson(twoOnFront.state, '/state', ''), ...emptyView() };
    const champion = twoOnFront.state.champion as EvalRow;
    const samples = [
      ...stateFigures(view, SETTINGS),
      ...viewFigures(view),
      ...zeroCounts(),
      ...reserveCheckFigures(reserveCheckRow(twoOnFront.state, champion, 2, evalRow('a', 1, 3, 9, 'reserve'), FOLD)),
    ];
    for (const sample of samples)
      expect(Object.keys(sample.labels ?? {}).sort()).toEqual([...LOOP_METRICS[sample.metric].labels].sort());
  });
});
