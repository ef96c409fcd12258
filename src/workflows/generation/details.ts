// The generation's current details: a Markdown page the Web UI shows on the workflow's page
// (User Metadata tab, "Current Details"), kept current as the loop changes. `renderDetails` is
// pure (tested in test/workflows/details.unit.test.ts); `keepDetailsCurrent` sets it from the state.
// Current details are answered by a built-in query, never written to history: they change no
// command, so histories recorded before them replay unchanged.
import { condition, isCancellation, setCurrentDetails } from '@temporalio/workflow';
import { compareKeyFor } from '../../rules/champion.js';
import type { LoopState, TestBudget } from '../../ledger/loop-state.js';
import type { ReserveCheckRow } from '../../ledger/rows.js';
import { describeReuseShort, describeTestBudget, testBudgetView, testReuse } from '../../rules/test-reuse.js';
import type { CompareKey, EvalRow } from '../../rules/types.js';
import { failureText } from '../lane-failure.js';
import type { Failing } from './carry.js';
import type { Generation } from './state.js';

/** Which block of an eval row the loop compares champions on (`result`, or `decided` with band decisions). */
export type ComparedBlock = CompareKey;

/** One job running on a lane, as the page says it. */
interface RunningJob {
  readonly lane: string;
  /** What it does: "train + evaluate `champ-g001-r0002-base`", "reserve check of ...". */
  readonly what: string;
  readonly since: string;
}

/**
 * Everything the page is made from: the generation's own fields, read as they are (drawing the
 * page runs after every activation, so it copies nothing the `state` query's view would).
 */
export interface DetailsInput {
  readonly loopId: string;
  readonly round: number;
  /** The folded state: generation, champion (with both blocks), front, evals, reserve checks, advance. */
  readonly state: LoopState;
  readonly compared: ComparedBlock;
  readonly saturationEvals: number;
  readonly maxReserveChecks: number;
  /** loop.yaml `test_budget`; absent without one. */
  readonly testBudget?: TestBudget;
  /** The last reserve check this run recorded; null when none (or before a continue-as-new). */
  readonly lastReserve: ReserveCheckRow | null;
  readonly stopping: boolean;
  readonly stopNow: boolean;
  readonly idle: boolean;
  readonly splitError: string | null;
  /** The split failed and is given up until `resume` (patch split-gives-up). */
  readonly splitGivenUp: boolean;
  readonly candidates: readonly string[];
  readonly candidatesError: string | null;
  readonly failing: Failing | null;
  readonly queued: number;
  readonly lanes: readonly {
    readonly queue: string;
    readonly slots: number;
    readonly downUntil: number;
    /** Its worker said it drains, until then (0: it did not). */
    readonly drainingUntil?: number;
  }[];
  readonly jobs: readonly RunningJob[];
  /** Teacher files an idle loop waits for. */
  readonly waitingFor: readonly string[];
  /** Epoch milliseconds (workflow time): pauses and down lanes end. */
  readonly now: number;
}

const code = (text: string): string => `\`${text.replace(/`/g, "'")}\``;

/** A time as the page shows it: UTC to the second. */
const at = (ms: number | string): string => `${new Date(ms).toISOString().slice(0, 19).replace('T', ' ')} UTC`;

const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`;

/**
 * The two error counts of a row's compared block, with their denominators: "Fail→Pass 12 of 200 ·
 * Pass→Fail 3 of 180" (words, not "12/200": the Web UI's Markdown turns a slash between digits into a fraction).
 */
export function countsText(row: Pick<EvalRow, 'result' | 'decided'>, compared: ComparedBlock): string {
  const block = row[compared];
  if (!block) return `no ${compared} counts`;
  const of = (denominator: unknown) => (typeof denominator === 'number' ? ` of ${denominator}` : '');
  return `Fail→Pass ${block.fail_to_pass_count}${of(block.fail_count)} · Pass→Fail ${block.pass_to_fail_count}${of(block.pass_count)}`;
}

function championLines(input: DetailsInput): string[] {
  const { compared, state } = input;
  const { champion } = state;
  if (!champion) return ['**Champion:** none yet'];
  const band = compared === 'decided' ? ' (after the reject band)' : '';
  return [
    `**Champion:** ${code(champion.run_id)} ${code(champion.checkpoint_name)}${champion.epoch === null ? '' : `, epoch ${champion.epoch}`} (candidate ${code(champion.candidate)})`,
    `**Counts${band}:** ${countsText(champion, compared)}`,
    `**Pareto front:** ${plural(state.front.length, 'member')}`,
  ];
}

function reserveLines(input: DetailsInput): string[] {
  const { state, saturationEvals, maxReserveChecks, lastReserve } = input;
  const since = state.testEvals - state.checkedEvals;
  const done = `${state.reserveChecks} of ${maxReserveChecks} done`;
  const next =
    state.advanceReason !== null
      ? 'none this generation (it is advancing)'
      : !state.champion
        ? `after ${plural(saturationEvals, 'test eval')} with a champion`
        : since >= saturationEvals
          ? 'due now'
          : `in ${plural(saturationEvals - since, 'test eval')}`;
  const lines = [`**Test evals:** ${state.testEvals} · **next reserve check:** ${next} (${done})`];
  if (lastReserve) {
    const p = (value: number | undefined) => (value === undefined ? '?' : value.toPrecision(3));
    const stats =
      lastReserve.status === 'ok' ? ` (Fail→Pass p=${p(lastReserve.f2p_p)}, Pass→Fail p=${p(lastReserve.p2f_p)})` : '';
    const stale = lastReserve.stale_champion ? '; the champion had changed meanwhile, so it counts for nothing' : '';
    lines.push(
      `**Last reserve verdict:** **${lastReserve.verdict}** for ${code(lastReserve.run_id)} ${code(lastReserve.checkpoint_name)} after ${lastReserve.test_evals} test evals${stats}${stale}`,
    );
  } else if (state.reserveChecks > 0) {
    // The verdict of the last counted check follows from the state: a fail ends the generation.
    const failed = state.advanceReason === 'reserve_failed';
    lines.push(`**Last reserve verdict:** **${failed ? 'fail' : 'pass'}** (check ${state.reserveChecks})`);
  } else lines.push('**Last reserve verdict:** none yet this generation');
  return lines;
}

/** The test set's reads this generation, what they may have cost the champion's counts, and the budget's rest. */
function testSetLines(input: DetailsInput): string[] {
  const { state, testBudget } = input;
  const reuse = testReuse(state.testEvals, state.champion);
  return [
    ...(reuse ? [`**Test-set reuse:** ${describeReuseShort(reuse)}`] : []),
    ...(testBudget ? [`**Test budget:** ${describeTestBudget(testBudgetView(state.testEvals, testBudget))}`] : []),
  ];
}

/** Why the loop is not starting work, if it is not; null while it works. */
function idleReason(input: DetailsInput): string | null {
  const { state, failing } = input;
  const running = input.jobs.length;
  if (input.stopNow) return `Stopping at once: cancelling ${plural(running, 'running job')}.`;
  if (input.stopping) {
    const advance = state.advanceReason
      ? ` The advance (${state.advanceReason}) waits for the loop to be started again.`
      : '';
    return `Stopping: no new jobs; waiting for ${plural(running, 'running job')} to finish.${advance}`;
  }
  if (state.advanceReason) return `Advancing to generation ${state.generation + 1} (${state.advanceReason}).`;
  if (failing && failing.until > input.now) {
    return `Paused: every run of the last ${plural(failing.rounds, 'round')} failed: ${failing.reason}. The next round starts at ${at(failing.until)}, or sooner when a run succeeds, the candidates file changes or \`resume\` is signalled.`;
  }
  if (input.splitError && input.splitGivenUp)
    return `Split failed, not tried again: ${input.splitError}. Fix the cause, then signal \`resume\` (or stop and start the loop); no training run starts until then.`;
  if (input.splitError) return `Split failing, trying again in a minute: ${input.splitError}`;
  if (input.idle) {
    const files = input.waitingFor.length > 0 ? ` for ${input.waitingFor.map(code).join(', ')} to appear or` : '';
    return `Idle: no active candidate; waiting${files} for the candidates file to change.`;
  }
  if (state.generation === 0) return 'Opening the first generation.';
  return null;
}

function laneLines(input: DetailsInput): string[] {
  return input.lanes.map((lane) => {
    const mine = input.jobs.filter((job) => job.lane === lane.queue);
    const down =
      (lane.drainingUntil ?? 0) > input.now
        ? ' · draining (its worker said so): no new job'
        : lane.downUntil > input.now
          ? ` · unavailable until ${at(lane.downUntil)}`
          : '';
    const doing = mine.length === 0 ? 'free' : mine.map((job) => `${job.what} (since ${at(job.since)})`).join('; ');
    return `- ${code(lane.queue)} ${mine.length} of ${lane.slots} busy${down}: ${doing}`;
  });
}

/** The generation's current details, as Markdown. */
export function renderDetails(input: DetailsInput): string {
  const { failing } = input;
  const running = plural(input.jobs.length, 'job');
  const status = idleReason(input) ?? `Working: ${running} running, ${input.queued} queued.`;
  return [
    `### Loop ${code(input.loopId)} · generation ${input.state.generation} · round ${input.round}`,
    '',
    ...championLines(input).map((line) => `${line}  `),
    ...reserveLines(input).map((line) => `${line}  `),
    ...testSetLines(input).map((line) => `${line}  `),
    '',
    `**Now:** ${status}`,
    ...(input.candidatesError
      ? ['', `**Candidates file invalid** (keeping ${input.candidates.join(', ')}): ${input.candidatesError}`]
      : []),
    ...(failing && failing.until <= input.now
      ? ['', `**Failing:** every run of the last ${plural(failing.rounds, 'round')} failed: ${failing.reason}`]
      : []),
    '',
    `**Lanes** (${running} running, ${input.queued} queued):`,
    '',
    ...laneLines(input),
  ].join('\n');
}

/** What a running child does, in the page's words. */
function jobWhat(flight: Generation['inFlight'][number]): string {
  const { job } = flight;
  if (job.kind === 'teacher') return `teacher build of generation ${job.generation}`;
  if (job.kind === 'reserve')
    return `reserve check of ${code(job.champion.run_id)} ${code(job.champion.checkpoint_name)}`;
  const what = job.reportRun ? 'ensemble' : job.run ? 'evaluate' : 'train + evaluate';
  return `${what} ${code(job.jobId)}${job.attempt > 1 ? ` (attempt ${job.attempt})` : ''}`;
}

/** The page's input from the generation's state. */
export function detailsInputOf(gen: Generation): DetailsInput {
  return {
    loopId: gen.loopId,
    round: gen.round,
    state: gen.state,
    compared: compareKeyFor(gen.settings.mode),
    saturationEvals: gen.settings.saturationEvals,
    maxReserveChecks: gen.settings.maxReserveChecks,
    ...(gen.settings.testBudget ? { testBudget: gen.settings.testBudget } : {}),
    lastReserve: gen.lastReserve,
    stopping: gen.stopping,
    stopNow: gen.stopNow,
    idle: gen.idle,
    splitError: gen.splitFailed?.error ?? gen.splitError,
    splitGivenUp: gen.splitFailed !== null,
    candidates: (gen.candidates ?? []).map((candidate) => candidate.name),
    candidatesError: gen.candidatesError,
    failing: gen.failing,
    queued: gen.queue.length + gen.builds.length,
    lanes: gen.lanes.map((lane) => ({
      ...lane,
      downUntil: gen.lanesDownUntil[lane.queue] ?? 0,
      drainingUntil: gen.lanesDraining[lane.queue] ?? 0,
    })),
    jobs: gen.inFlight.map((flight) => ({ lane: flight.lane, what: jobWhat(flight), since: flight.since })),
    waitingFor: gen.waitingFor,
    now: Date.now(),
  };
}

function detailsOf(gen: Generation): string {
  try {
    return renderDetails(detailsInputOf(gen));
  } catch (error) {
    // A page that cannot be drawn must never fail the workflow task that evaluates it.
    return `The loop's details could not be drawn: ${failureText(error)}`;
  }
}

/**
 * Keep the current details equal to the state: a condition evaluated after every activation, so
 * whatever changed the state (a report, a signal, an update, a finished activity) shows at once.
 * Runs for as long as the workflow does; it adds nothing to history.
 */
export function keepDetailsCurrent(gen: Generation): void {
  let shown = detailsOf(gen);
  setCurrentDetails(shown);
  void (async () => {
    try {
      for (;;) {
        let next = shown;
        await condition(() => {
          next = detailsOf(gen);
          return next !== shown;
        });
        shown = next;
        setCurrentDetails(shown);
      }
    } catch (error) {
      // A cancelled workflow cancels this wait too: the page stops there. Left unhandled, the
      // rejection would fail every workflow task and keep the cancelled loop running.
      if (!isCancellation(error)) throw error;
    }
  })();
}
