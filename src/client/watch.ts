import type { Client } from '@temporalio/client';
import type { TestBudgetView } from '../rules/test-reuse.js';
import type { LoopView, ReserveCheckBrief } from '../workflows/loop-view.js';
import { loopLook } from './loop-look.js';
import { describeNoPoller, type LoopQueue } from './pollers.js';
import { jobsOnDevices } from './lane-devices.js';
import { flightActivities } from './step-waits.js';
import { deviceLine, jobLine, laneDevices, type LaneDevice } from './render-devices.js';
import { describeEval, laneDown, laneDraining } from './render-status.js';

/** What changed between two looks at a loop, as lines a person reads (pure). */
export function loopEvents(previous: LoopView | null, next: LoopView): string[] {
  if (previous === null) return [`watching loop ${next.loop_id}: generation ${next.generation}, round ${next.round}`];
  const events: string[] = [];
  // Every reserve check, the one that ended a generation included: newer workers count them
  // across generations; older ones only within one.
  const seen = (view: LoopView) => view.reserve_checks_seen;
  const counted = seen(next) !== undefined && seen(previous) !== undefined;
  if (counted && (seen(next) ?? 0) > (seen(previous) ?? 0) && next.last_reserve_check) {
    const more = (seen(next) ?? 0) - (seen(previous) ?? 0);
    events.push(
      `${more > 1 ? `${more} reserve checks; the last: ` : ''}${describeReserveCheck(next.last_reserve_check)}`,
    );
  }
  if (next.generation !== previous.generation) {
    const reason = next.opened_by ?? previous.advance_reason;
    events.push(`generation ${next.generation} opened${reason ? ` (${reason})` : ''}`);
  } else if (next.round !== previous.round) {
    events.push(`round ${next.round} started: ${next.candidates.join(', ')}`);
  }
  const key = (view: LoopView) => (view.champion ? `${view.champion.run_id}/${view.champion.checkpoint_name}` : '');
  if (next.champion && key(next) !== key(previous))
    events.push(`new champion: ${describeEval(next.champion, next.decided?.champion)}`);
  const front = (view: LoopView) => view.pareto_set.map((row) => `${row.run_id}/${row.checkpoint_name}`).join(' ');
  if (next.generation === previous.generation && front(next) !== front(previous)) {
    events.push(`Pareto front: ${next.pareto_set.length} member${next.pareto_set.length === 1 ? '' : 's'}`);
  }
  if (!counted && next.generation === previous.generation && next.reserve_checks > previous.reserve_checks) {
    // A failed check counts as a check too; only the reason it sets tells the two apart.
    const failed = next.advance_reason === 'reserve_failed' && previous.advance_reason !== 'reserve_failed';
    events.push(
      `reserve check ${next.reserve_checks} ${failed ? 'failed: the champion is significantly worse on the reserve set' : 'held up'}${next.advance_reason ? `; generation ends (${next.advance_reason})` : ''}`,
    );
  }
  if (next.generation === previous.generation && next.test_budget?.left === 0 && previous.test_budget?.left !== 0) {
    events.push(
      `test budget spent (${next.test_budget.reads} reads): ${next.test_budget.when_spent === 'freeze' ? 'no promotion until the next generation' : 'the generation advances'}`,
    );
  }
  const endedByCheck = counted && next.last_reserve_check?.ends === next.advance_reason && events.length > 0;
  if (
    next.advance_reason &&
    next.advance_reason !== previous.advance_reason &&
    next.generation === previous.generation &&
    !(endedByCheck && (seen(next) ?? 0) > (seen(previous) ?? 0))
  ) {
    events.push(`generation ${next.generation} ends: ${next.advance_reason}`);
  }
  if (next.candidates_error && next.candidates_error !== previous.candidates_error)
    events.push(`candidates file invalid, keeping the previous list: ${next.candidates_error}`);
  if (
    next.split_error &&
    (next.split_error !== previous.split_error || next.split_given_up !== previous.split_given_up)
  )
    events.push(
      `${next.split_given_up ? 'split failed, not tried again until resume' : 'split failing'}: ${next.split_error}`,
    );
  if (next.failing && next.failing.rounds !== previous.failing?.rounds) {
    events.push(
      `failing: every run of the last ${next.failing.rounds} round${next.failing.rounds === 1 ? '' : 's'} failed: ${next.failing.reason}${next.failing.paused_until ? `; no new round until ${next.failing.paused_until}` : ''}`,
    );
  }
  if (!next.failing && previous.failing) events.push('no longer failing: a run did not fail');
  return events;
}

/** A p-value as the reserve check line shows it. */
const pValue = (p: number | null): string => (p === null ? '-' : p < 0.0001 ? p.toExponential(1) : p.toFixed(4));

/** One reserve check: whose, its verdict with both p-values and the alpha it was judged at, and what it caused. */
function describeReserveCheck(check: ReserveCheckBrief): string {
  const who = `generation ${check.generation} ${check.run_id} ${check.checkpoint_name}`;
  if (check.stale) return `reserve check of ${who}: stale (the champion changed while it ran; changes nothing)`;
  if (check.status !== 'ok') return `reserve check of ${who}: failed to score (${check.verdict}); counts as no check`;
  const verdict =
    check.verdict === 'fail' ? 'failed: the champion is significantly worse on the reserve set' : 'held up';
  const ps = `Fail->Pass p=${pValue(check.f2p_p)}, Pass->Fail p=${pValue(check.p2f_p)}, alpha ${check.alpha}`;
  return `reserve check of ${who} ${verdict} (${ps})${check.ends ? `; generation ${check.generation} ends (${check.ends})` : ''}`;
}

function elapsed(since: string, now: Date): string {
  const seconds = Math.max(0, Math.round((now.getTime() - Date.parse(since)) / 1000));
  return seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, '0')}s`;
}

/** What is left of the test budget, in a few words: `8 of 20 left`, or `spent (frozen)` / `spent (advancing)`. */
function budgetLeft(budget: TestBudgetView): string {
  if (budget.left > 0) return `${budget.left} of ${budget.reads} left`;
  return `spent (${budget.when_spent === 'freeze' ? 'frozen' : 'advancing'})`;
}

/** The live block `watch` redraws: progress per lane with elapsed time, champion, saturation (pure). */
export function renderFrame(
  view: LoopView,
  now: Date,
  saturationEvals?: number,
  noPoller: readonly LoopQueue[] = [],
  devices: readonly LaneDevice[] = [],
): string[] {
  const lines = [
    `loop ${view.loop_id} · generation ${view.generation} · round ${view.round} · ${view.in_flight.length} running, ${view.queued} queued${view.stopping ? ' · stopping' : ''}`,
    `champion: ${view.champion ? describeEval(view.champion, view.decided?.champion) : 'none yet'}`,
    `test evals ${view.test_evals} · until the reserve check: ${saturationEvals === undefined ? `${view.tests_since_reserve_check} since the last` : Math.max(0, saturationEvals - view.tests_since_reserve_check)} · reserve checks ${view.reserve_checks}${view.test_budget ? ` · test budget ${budgetLeft(view.test_budget)}` : ''}`,
  ];
  for (const lane of view.lanes) {
    const jobs = view.in_flight.filter((flight) => flight.lane === lane.queue);
    const doing = jobs
      .map((job) => `${job.kind === 'reserve' ? 'reserve check ' : ''}${job.jobId} ${elapsed(job.since, now)}`)
      .join(', ');
    const unpolled = noPoller.find((queue) => queue.queue === lane.queue);
    const served = unpolled === undefined ? '' : unpolled.busy ? ' busy with other jobs' : ' no worker';
    lines.push(
      `  ${lane.queue} ${lane.busy}/${lane.slots}${laneDraining(lane, now) ? ' draining' : laneDown(lane, now) ? ' unavailable' : ''}${served}: ${doing || 'idle'}`,
    );
    if (lane.lost_to !== undefined) lines.push(`    last lost under a job: ${lane.lost_to}`);
    const device = devices.find((one) => one.lane === lane.queue);
    if (device !== undefined)
      lines.push(`    ${deviceLine(device)}`, ...device.jobs.map((job) => `      ${jobLine(job, now)}`));
  }
  for (const queue of noPoller) lines.push(describeNoPoller(queue));
  return lines;
}

export interface WatchOptions {
  readonly out: NodeJS.WritableStream & { isTTY?: boolean };
  readonly intervalMs?: number;
  readonly saturationEvals?: number;
  /** Stop watching once this holds (default: never). */
  readonly until?: (view: LoopView) => boolean;
  readonly signal?: AbortSignal;
  /** The loop could no longer be read (it ended, a query failed): told here instead of printed. */
  readonly onLost?: (error: Error) => void;
}

/**
 * Follow a running loop: events as they happen, and on a terminal a status block redrawn in
 * place. Returns the last state seen.
 */
export async function watchLoop(client: Client, loopId: string, options: WatchOptions): Promise<LoopView | null> {
  const { out } = options;
  let previous: LoopView | null = null;
  let drawn = 0;
  let unpolled: LoopQueue[] = [];
  while (!options.signal?.aborted) {
    let view: LoopView | null;
    let noPoller: LoopQueue[];
    try {
      ({ view, noPoller } = await loopLook(client, loopId));
    } catch (error) {
      if (previous === null) throw error;
      if (drawn > 0) out.write(`\x1b[${drawn}F\x1b[J`);
      if (options.onLost) options.onLost(error as Error);
      else out.write(`loop ${loopId}: ${(error as Error).message}\n`);
      return previous;
    }
    // Queues that lost or regained their workers, before what the loop says (when it can say anything).
    const events = [
      ...noPoller.filter((queue) => !unpolled.some((known) => known.queue === queue.queue)).map(describeNoPoller),
      ...unpolled
        .filter((known) => !noPoller.some((queue) => queue.queue === known.queue))
        .map((known) => `a worker polls task queue ${known.queue} again`),
      ...(view ? loopEvents(previous, view) : []),
    ];
    unpolled = noPoller;
    const devices = out.isTTY && view ? laneDevices(jobsOnDevices(client, await flightActivities(client, view))) : [];
    const frame = out.isTTY && view ? renderFrame(view, new Date(), options.saturationEvals, noPoller, devices) : [];
    // Move up over the last frame and clear it, print new events, then the frame again.
    if (drawn > 0) out.write(`\x1b[${drawn}F\x1b[J`);
    const stamp = new Date().toISOString().slice(11, 19);
    for (const event of events) out.write(`[${stamp}] ${event}\n`);
    if (frame.length > 0) out.write(`${frame.join('\n')}\n`);
    drawn = frame.length;
    if (view) previous = view;
    if (view && options.until?.(view)) return view;
    await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1_000));
  }
  return previous;
}
