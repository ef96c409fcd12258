import type { DecidedCounts, StateJson } from '../ledger/loop-state.js';
import { describeReservePower } from '../ledger/reserve-check-power.js';
import { describeTestBudget, describeTestReuse, testReuse } from '../rules/test-reuse.js';
import type { Decided, EvalSummary } from '../rules/types.js';
import type { LoopView } from '../workflows/loop-view.js';

function percent(value: number | undefined): string {
  return value === undefined ? '?' : `${(value * 100).toFixed(2)}%`;
}

/**
 * One eval summary as a line: run, epoch, both error counts with their rates. `decided` given
 * (loop.yaml band_decisions: the champion and front were decided on the counts after the reject
 * band): those counts first, named, and the raw ones beside them; null: it has none.
 */
export function describeEval(row: EvalSummary, decided?: Decided | null): string {
  const result = row.result;
  const raw = result
    ? `f2p=${result.fail_to_pass_count}/${result.fail_count} (${percent(result.fail_to_pass_rate)}) p2f=${result.pass_to_fail_count}/${result.pass_count} (${percent(result.pass_to_fail_rate)})`
    : 'no result';
  const name = `${row.run_id} ${row.checkpoint_name}${row.epoch === null ? '' : ` epoch=${row.epoch}`}`;
  if (decided === undefined) return `${name} ${raw}`;
  return `${name} ${describeDecided(decided)} · raw ${raw}`;
}

/** The counts a band-decision loop decided on, named: `decided f2p=3/60 p2f=4/240 rejected=7`. */
function describeDecided(decided: Decided | null): string {
  if (decided === null) return 'decided: none';
  const rejected = typeof decided.rejected_total === 'number' ? ` rejected=${decided.rejected_total}` : '';
  return `decided f2p=${decided.fail_to_pass_count}/${decided.fail_count} p2f=${decided.pass_to_fail_count}/${decided.pass_count}${rejected}`;
}

/** The decided counts of the champion and of each front member (undefined: the loop decides on raw counts). */
function decidedOf(decided: DecidedCounts | undefined) {
  return {
    champion: decided ? decided.champion : undefined,
    member: (index: number) => (decided ? (decided.pareto_set[index] ?? null) : undefined),
  };
}

/** The champion and Pareto set lines of `status`, on the counts they were decided on. */
function championLines(state: Pick<StateJson, 'champion' | 'pareto_set'> & { decided?: DecidedCounts }): string[] {
  const decided = decidedOf(state.decided);
  return [
    `champion: ${state.champion ? describeEval(state.champion, decided.champion) : 'none yet'}`,
    `pareto set (${state.pareto_set.length})${state.decided ? ', decided on the counts after the reject band (band_decisions)' : ''}:`,
    ...state.pareto_set.map((row, index) => `  ${describeEval(row, decided.member(index))}`),
  ];
}

/** Whether a lane is marked unavailable now (a `down_until` already past is not). */
export function laneDown(lane: LoopView['lanes'][number], now: Date): boolean {
  return lane.down_until !== null && Date.parse(lane.down_until) > now.getTime();
}

/** Seconds as GPU-hours, e.g. `1.25`. */
function hours(seconds: number): string {
  return (seconds / 3600).toFixed(2);
}

/** US dollars, e.g. `$12.40`. */
export function dollars(usd: number): string {
  return `$${usd.toFixed(2)}`;
}

/** A duration in seconds as `3h05m`, `12m`, `40s`. */
export function duration(seconds: number): string {
  if (seconds < 60) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes}m`;
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, '0')}m`;
}

/** Whether a lane's worker said it drains, and the notice has not run out. */
export function laneDraining(lane: LoopView['lanes'][number], now: Date): boolean {
  const until = lane.draining_until ?? null;
  return until !== null && Date.parse(until) > now.getTime();
}

/** A job's lane step and priority key, e.g. ` (training, priority 4)`; empty from older workers. */
function stepWords(job: { readonly step?: string; readonly priority?: number }): string {
  if (job.step === undefined || job.priority === undefined) return '';
  return ` (${job.step === 'reserve' ? 'reserve check' : job.step}, priority ${job.priority})`;
}

/** `, 2m of it waiting for GPU memory`: the part of a lane's idle time its jobs all waited for memory (none: nothing). */
function memoryWaitWords(seconds: number | undefined): string {
  return seconds === undefined || seconds <= 0 ? '' : `, ${duration(seconds)} of it waiting for GPU memory`;
}

/** The `status` command's text: what a person wants to see of a running loop. */
export function renderStatus(view: LoopView, saturationEvals?: number, now = new Date()): string {
  const lines = [
    `loop ${view.loop_id}: generation ${view.generation}, round ${view.round}${view.stopping ? ' (stopping)' : ''}${view.idle ? ' (idle)' : ''}`,
    `split: ${view.split_ready ? view.split : 'not built yet'}`,
    ...championLines(view),
    `test evals: ${view.test_evals}; since the last reserve check: ${view.tests_since_reserve_check}${saturationEvals ? ` of ${saturationEvals}` : ''}; reserve checks: ${view.reserve_checks}`,
    ...reuseLines(view),
    ...(view.test_budget ? [`test budget: ${describeTestBudget(view.test_budget)}`] : []),
  ];
  if (view.last_reserve_power) lines.push(`last reserve check ${describeReservePower(view.last_reserve_power)}`);
  if (view.advance_reason) lines.push(`advancing: ${view.advance_reason}`);
  if (view.training_gpu_seconds && view.training_gpu_seconds.loop > 0) {
    const { generation, loop } = view.training_gpu_seconds;
    const usd = view.training_gpu_usd;
    const cost = usd
      ? `; cost ${dollars(usd.generation)} this generation, ${dollars(usd.loop)} in all (loop.yaml usd_per_gpu_hour)`
      : '';
    lines.push(
      `GPU time of training (run rows' gpu_seconds): ${hours(generation)} GPU-hours this generation, ${hours(loop)} in all${cost}`,
    );
  }
  lines.push(`jobs: ${view.in_flight.length} running, ${view.queued} queued`);
  const queued = view.queued_jobs ?? [];
  if (queued.length > 0)
    lines.push(
      `  queued, next first${queued.length < view.queued ? ` (the first ${queued.length})` : ''}: ${queued.map((job) => `${job.jobId}${stepWords(job)}`).join(', ')}`,
    );
  for (const lane of view.lanes) {
    const jobs = view.in_flight.filter((flight) => flight.lane === lane.queue);
    const mark = laneDraining(lane, now)
      ? ' (draining: its worker takes no new job, its running ones finish)'
      : laneDown(lane, now)
        ? ` (unavailable until ${lane.down_until})`
        : '';
    const idle =
      lane.idle_seconds === undefined || lane.watched_seconds === undefined || lane.watched_seconds <= 0
        ? ''
        : `; no job ${duration(lane.idle_seconds)} of ${duration(lane.watched_seconds)} (${Math.round((100 * lane.idle_seconds) / lane.watched_seconds)}%${memoryWaitWords(lane.memory_wait_seconds)})`;
    lines.push(`  lane ${lane.queue}: ${lane.busy}/${lane.slots}${mark}${idle}`);
    if (lane.lost_to !== undefined) lines.push(`    last lost under a job: ${lane.lost_to}`);
    for (const job of jobs) lines.push(`    ${job.kind} ${job.jobId}${stepWords(job)} since ${job.since}`);
  }
  if (view.candidates_error)
    lines.push(`candidates file invalid (keeping ${view.candidates.join(', ')}): ${view.candidates_error}`);
  if (view.split_error && view.split_given_up) {
    lines.push(`split failed, not tried again: ${view.split_error}`);
    lines.push(
      `  no training run starts until then; fix the cause, then: temporal workflow signal --workflow-id champion-loop/${view.loop_id} --name resume (or stop and start the loop)`,
    );
  } else if (view.split_error) lines.push(`split failing: ${view.split_error}`);
  if (view.failing) {
    const { reason, since, rounds, paused_until } = view.failing;
    lines.push(
      `failing: every run of the last ${rounds} round${rounds === 1 ? '' : 's'} failed (since ${since}): ${reason}`,
    );
    lines.push(
      `  ${paused_until ? `no new round until ${paused_until}` : 'planning the next round'}; fix the cause: the loop goes on by itself when a run succeeds or the candidates file changes, or at once with: temporal workflow signal --workflow-id champion-loop/${view.loop_id} --name resume`,
    );
  }
  return lines.join('\n');
}

/** The test set's reuse this generation, once it has a champion to be optimistic about. */
function reuseLines(state: Pick<StateJson, 'test_evals' | 'champion'>): string[] {
  const reuse = testReuse(state.test_evals, state.champion);
  return reuse ? [describeTestReuse(reuse)] : [];
}

/** A loop that is not running: its state.json as `status` shows it. */
export function renderStoppedState(state: StateJson & { decided?: DecidedCounts }): string {
  return [
    `generation ${state.generation}`,
    ...championLines(state),
    `test evals: ${state.test_evals}; since the last reserve check: ${state.tests_since_reserve_check}; reserve checks: ${state.reserve_checks}`,
    ...reuseLines(state),
    ...(state.advance_reason ? [`advancing: ${state.advance_reason}`] : []),
  ].join('\n');
}
