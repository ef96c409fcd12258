// The pure mapping from what the loop holds (its folded state, its ledger rows, its `state` view)
// to metric samples. No I/O: loop-metrics.ts feeds these to the SDK's meter.
import type { StateJson } from '../ledger/loop-state.js';
import type { LedgerRow, PackageRow, ReserveCheckRow, RunStatus } from '../ledger/rows.js';
import type { LoopView } from '../workflows/loop-view.js';
import type { LoopMetricName, Sample } from './loop-metric-catalogue.js';
import { testReuse } from '../rules/test-reuse.js';

const ERRORS = [
  ['fail_to_pass', 'fail_to_pass_count', 'fail_to_pass_rate'],
  ['pass_to_fail', 'pass_to_fail_count', 'pass_to_fail_rate'],
] as const;
const RUN_STATUSES: readonly RunStatus[] = [
  'trained',
  'no_eligible_checkpoint',
  'train_failed',
  'stale_run_dir',
  'ensemble',
];
const VERDICTS = ['pass', 'fail', 'error'] as const;
const PACKAGE_OUTCOMES = ['launched', 'succeeded', 'failed', 'dropped', 'launch_failed'] as const;
const JOB_KINDS = ['run', 'reserve', 'teacher'] as const;

const flag = (on: boolean): number => (on ? 1 : 0);

/** The settings figures come with (loop.yaml). */
export interface LoopSettings {
  readonly saturation_evals: number;
  readonly max_reserve_checks: number;
  readonly test_budget?: { readonly reads: number };
}

/** The figures `status` prints of the state: generation, champion counts, front, test evals, reserve checks. */
export function stateFigures(state: StateJson, settings: LoopSettings): Sample[] {
  const result = state.champion?.result ?? null;
  const reuse = testReuse(state.test_evals, state.champion);
  return [
    { metric: 'champion_loop_generation', value: state.generation },
    ...ERRORS.flatMap(([error, count, rate]) => [
      { metric: 'champion_loop_champion_errors' as const, labels: { error }, value: result ? result[count] : NaN },
      { metric: 'champion_loop_champion_error_ratio' as const, labels: { error }, value: result ? result[rate] : NaN },
    ]),
    { metric: 'champion_loop_pareto_set_members', value: state.pareto_set.length },
    { metric: 'champion_loop_test_evals', value: state.test_evals },
    ...ERRORS.map(([error]) => ({
      metric: 'champion_loop_test_optimism_errors' as const,
      labels: { error },
      value: reuse ? reuse[error].optimism : NaN,
    })),
    { metric: 'champion_loop_test_budget_reads', value: settings.test_budget?.reads ?? NaN },
    { metric: 'champion_loop_test_evals_since_reserve_check', value: state.tests_since_reserve_check },
    { metric: 'champion_loop_saturation_evals', value: settings.saturation_evals },
    { metric: 'champion_loop_reserve_checks', value: state.reserve_checks },
    { metric: 'champion_loop_max_reserve_checks', value: settings.max_reserve_checks },
    { metric: 'champion_loop_advancing', value: flag(state.advance_reason !== null) },
  ];
}

/** Every counter's label sets at zero, so that a series exists (and `rate()` works) before its first event. */
export function zeroCounts(): Sample[] {
  return [
    ...RUN_STATUSES.map((status) => ({ metric: 'champion_loop_runs_total' as const, labels: { status }, value: 0 })),
    ...['test', 'reserve'].flatMap((role) =>
      ['ok', 'failed'].map((status) => ({
        metric: 'champion_loop_evals_total' as const,
        labels: { role, status },
        value: 0,
      })),
    ),
    ...VERDICTS.map((verdict) => ({
      metric: 'champion_loop_reserve_checks_total' as const,
      labels: { verdict },
      value: 0,
    })),
    { metric: 'champion_loop_champions_total', value: 0 },
    ...PACKAGE_OUTCOMES.map((outcome) => ({
      metric: 'champion_loop_packages_total' as const,
      labels: { outcome },
      value: 0,
    })),
  ];
}

/** A package row's outcome label: `finished` splits on the exit code. */
function packageOutcome(row: PackageRow): string {
  if (row.event !== 'finished') return row.event;
  return row.exit_code === 0 ? 'succeeded' : 'failed';
}

/** The counter increments new ledger rows make, one sample per metric and label set. */
export function rowCounts(rows: readonly LedgerRow[]): Sample[] {
  const counts = new Map<string, Sample>();
  const add = (sample: Sample): void => {
    const key = JSON.stringify([sample.metric, sample.labels ?? {}]);
    const before = counts.get(key);
    counts.set(key, before ? { ...before, value: before.value + sample.value } : sample);
  };
  for (const row of rows) {
    switch (row.type) {
      case 'run':
        add({ metric: 'champion_loop_runs_total', labels: { status: row.status }, value: 1 });
        break;
      case 'eval':
        add({ metric: 'champion_loop_evals_total', labels: { role: row.role, status: row.status }, value: 1 });
        break;
      case 'reserve_check':
        if (!row.stale_champion)
          add({ metric: 'champion_loop_reserve_checks_total', labels: { verdict: row.verdict }, value: 1 });
        break;
      case 'champion':
        add({ metric: 'champion_loop_champions_total', value: 1 });
        break;
      case 'package':
        add({ metric: 'champion_loop_packages_total', labels: { outcome: packageOutcome(row) }, value: 1 });
        break;
      default:
        break;
    }
  }
  return [...counts.values()];
}

/** The last reserve check that counts (a stale one does not) among rows in ledger order. */
export function lastReserveCheck(rows: readonly LedgerRow[]): ReserveCheckRow | null {
  for (let index = rows.length - 1; index >= 0; index -= 1) {
    const row = rows[index];
    if (row?.type === 'reserve_check' && !row.stale_champion) return row;
  }
  return null;
}

/** The last reserve check's p-values (absent when it could not run), verdict and time. */
export function reserveCheckFigures(row: ReserveCheckRow): Sample[] {
  const pValues: [string, number | undefined][] = [
    ['fail_to_pass', row.f2p_p],
    ['pass_to_fail', row.p2f_p],
  ];
  return [
    ...pValues.map(([direction, p]) => ({
      metric: 'champion_loop_reserve_check_p_value' as const,
      labels: { direction },
      value: p ?? NaN,
    })),
    ...VERDICTS.map((verdict) => ({
      metric: 'champion_loop_reserve_check_verdict' as const,
      labels: { verdict },
      value: flag(row.verdict === verdict),
    })),
    { metric: 'champion_loop_reserve_check_timestamp_seconds', value: Date.parse(row.finished) / 1000 },
  ];
}

/** A sum the view keeps for this generation and for the whole loop: one sample per scope. */
function byScope(
  metric: LoopMetricName,
  sums: { readonly generation: number; readonly loop: number } | undefined,
): Sample[] {
  if (sums === undefined) return [];
  return (['generation', 'loop'] as const).map((scope) => ({ metric, labels: { scope }, value: sums[scope] }));
}

/** The figures of the `state` view beyond the ledger's: round, jobs queued and in flight, lanes. */
export function viewFigures(view: LoopView, now = Date.now()): Sample[] {
  return [
    { metric: 'champion_loop_round', value: view.round },
    { metric: 'champion_loop_idle', value: flag(view.idle) },
    { metric: 'champion_loop_stopping', value: flag(view.stopping) },
    { metric: 'champion_loop_jobs_queued', value: view.queued },
    ...JOB_KINDS.map((kind) => ({
      metric: 'champion_loop_jobs_in_flight' as const,
      labels: { kind },
      value: view.in_flight.filter((flight) => flight.kind === kind).length,
    })),
    ...view.lanes.flatMap((lane) => {
      const labels = { lane: lane.queue };
      const down = lane.down_until !== null && Date.parse(lane.down_until) > now;
      return [
        { metric: 'champion_loop_lane_slots' as const, labels, value: lane.slots },
        { metric: 'champion_loop_lane_busy_slots' as const, labels, value: lane.busy },
        {
          metric: 'champion_loop_lane_busy_ratio' as const,
          labels,
          value: lane.slots > 0 ? lane.busy / lane.slots : 0,
        },
        { metric: 'champion_loop_lane_down' as const, labels, value: flag(down) },
        {
          metric: 'champion_loop_lane_draining' as const,
          labels,
          value: flag((lane.draining_until ?? null) !== null && Date.parse(lane.draining_until ?? '') > now),
        },
        ...(lane.idle_seconds === undefined
          ? []
          : [{ metric: 'champion_loop_lane_idle_seconds' as const, labels, value: lane.idle_seconds }]),
      ];
    }),
    ...byScope('champion_loop_training_gpu_seconds', view.training_gpu_seconds),
    ...byScope('champion_loop_training_gpu_usd', view.training_gpu_usd),
  ];
}
