// The loop's own Prometheus metrics, served by the orchestrator worker beside the SDK's
// `temporal_*` ones. One place names them all: the exporter creates its instruments from here,
// docs/inspecting.md lists them, and the dashboard test checks examples/grafana against these names.
// Every metric has a `loop` label (the loop id); the extra labels are listed per metric.

/** How a metric changes: a gauge is set to the latest figure, a counter only adds. */
type LoopMetricKind = 'gauge' | 'counter';

export interface LoopMetricSpec {
  readonly kind: LoopMetricKind;
  /** `float` for ratios, p-values, times and figures that can be NaN (no champion); `int` otherwise. */
  readonly valueType: 'int' | 'float';
  /** Labels beside `loop`. */
  readonly labels: readonly string[];
  readonly help: string;
}

const gauge = (help: string, labels: readonly string[] = [], valueType: 'int' | 'float' = 'int'): LoopMetricSpec => ({
  kind: 'gauge',
  valueType,
  labels,
  help,
});
const counter = (help: string, labels: readonly string[] = []): LoopMetricSpec => ({
  kind: 'counter',
  valueType: 'int',
  labels,
  help,
});

export const LOOP_METRICS = {
  // From the ledger: what the loop's rows fold to, after every ledger-copy pass (2 s).
  champion_loop_generation: gauge('The current generation (0 before the first).'),
  champion_loop_champion_errors: gauge(
    "The champion's test error counts: error=fail_to_pass or pass_to_fail (NaN while there is no champion).",
    ['error'],
    'float',
  ),
  champion_loop_champion_error_ratio: gauge(
    "The champion's test error rates, 0 to 1: error=fail_to_pass or pass_to_fail (NaN while there is no champion).",
    ['error'],
    'float',
  ),
  champion_loop_pareto_set_members: gauge("Checkpoints in the generation's Pareto set (front)."),
  champion_loop_test_evals: gauge('Competing test evaluations of this generation.'),
  champion_loop_test_optimism_errors: gauge(
    "Upper estimate of how many errors the champion's test count may be optimistic by selection alone, after this generation's test evaluations: error=fail_to_pass or pass_to_fail (NaN while there is no champion; docs/behaviour.md 6.1).",
    ['error'],
    'float',
  ),
  champion_loop_test_budget_reads: gauge(
    'Test evaluations a generation may make before its champion is frozen or it advances (loop.yaml test_budget.reads; NaN without a budget).',
    [],
    'float',
  ),
  champion_loop_test_evals_since_reserve_check: gauge('Test evaluations since the last reserve check.'),
  champion_loop_saturation_evals: gauge('Test evaluations that make a reserve check due (loop.yaml saturation_evals).'),
  champion_loop_reserve_checks: gauge('Reserve checks that ran this generation.'),
  champion_loop_max_reserve_checks: gauge(
    'Passing reserve checks that end a generation (loop.yaml max_reserve_checks).',
  ),
  champion_loop_advancing: gauge(
    '1 when the generation will end (a failed reserve check, max_reserve_checks, or a spent test_budget).',
  ),
  champion_loop_reserve_check_p_value: gauge(
    'p-value of the last reserve check: direction=fail_to_pass or pass_to_fail (NaN when it could not run).',
    ['direction'],
    'float',
  ),
  champion_loop_reserve_check_verdict: gauge(
    "The last reserve check's verdict: 1 on its verdict (pass, fail or error), 0 on the others.",
    ['verdict'],
  ),
  champion_loop_reserve_check_timestamp_seconds: gauge('When the last reserve check finished, Unix time.', [], 'float'),
  champion_loop_synced_timestamp_seconds: gauge(
    'When the ledger copy last caught up with history, Unix time.',
    [],
    'float',
  ),
  champion_loop_runs_total: counter('Training runs recorded, by status (trained, train_failed, ...).', ['status']),
  champion_loop_evals_total: counter('Evaluations recorded, by role (test, reserve, ...) and status (ok, failed).', [
    'role',
    'status',
  ]),
  champion_loop_reserve_checks_total: counter('Reserve checks recorded (stale ones aside), by verdict.', ['verdict']),
  champion_loop_champions_total: counter('New champions recorded.'),
  champion_loop_packages_total: counter(
    'Packaging steps recorded, by outcome: launched, succeeded, failed (non-zero exit), dropped, launch_failed.',
    ['outcome'],
  ),
  // From the generation's `state` query (what `status` prints), at most every few seconds.
  champion_loop_round: gauge('The current round of the generation.'),
  champion_loop_idle: gauge('1 while the loop waits with nothing to plan.'),
  champion_loop_stopping: gauge('1 while the loop finishes its jobs to stop.'),
  champion_loop_jobs_queued: gauge('Jobs waiting for a lane.'),
  champion_loop_jobs_in_flight: gauge('Jobs running on a lane, by kind (run, reserve, teacher).', ['kind']),
  champion_loop_lane_slots: gauge('Slots of a lane (jobs it runs at once).', ['lane']),
  champion_loop_lane_busy_slots: gauge("A lane's slots running a job.", ['lane']),
  champion_loop_lane_busy_ratio: gauge(
    "A lane's busy fraction when sampled: busy slots over slots, 0 to 1.",
    ['lane'],
    'float',
  ),
  champion_loop_lane_down: gauge('1 while a lane is marked unavailable (it did not start work in time).', ['lane']),
  champion_loop_lane_draining: gauge("1 while a lane's worker says it drains: the loop sends it no new job.", ['lane']),
  champion_loop_lane_idle_seconds: gauge(
    'Seconds no job of this loop ran on a lane (it had none, or each waited for GPU memory), since the loop first saw it.',
    ['lane'],
    'float',
  ),
  champion_loop_training_gpu_seconds: gauge(
    "GPU seconds of the loop's training runs (their rows' gpu_seconds), by scope (generation: this one; loop: in all).",
    ['scope'],
    'float',
  ),
  champion_loop_training_gpu_usd: gauge(
    "What that GPU time cost in US dollars (run rows' gpu_usd, loop.yaml usd_per_gpu_hour), by scope; absent without a price.",
    ['scope'],
    'float',
  ),
} as const satisfies Record<string, LoopMetricSpec>;

export type LoopMetricName = keyof typeof LOOP_METRICS;

export const LOOP_METRIC_NAMES = Object.keys(LOOP_METRICS) as LoopMetricName[];

/** One figure for one metric and label set (`loop` is added by the exporter). */
export interface Sample {
  readonly metric: LoopMetricName;
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}
