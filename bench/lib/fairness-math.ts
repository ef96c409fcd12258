// Section 12's measures (two loops on shared lanes): each loop's share of the lanes' time within a
// window, how long a kind of step waited in a lane's queue, and rounds an hour. Pure, no I/O.

/** One lane activity of a loop's child workflow, as the child's history tells it (epoch ms). */
export interface LaneStep {
  readonly loop: string;
  /** The lane's task queue. */
  readonly queue: string;
  /** trainRun, evaluateRun, evaluateReserve, buildTeacher, ... */
  readonly type: string;
  /** The child workflow's start: for a reserve check, when the generation dispatched it (it was due). */
  readonly childStartMs: number;
  readonly scheduledMs: number;
  /** When a lane took it; null if it never started. */
  readonly startedMs: number | null;
  /** When it completed, failed or was cancelled; null if still open when the history was read. */
  readonly closedMs: number | null;
  /** Whether it completed (not failed, timed out or cancelled). */
  readonly completed: boolean;
}

export interface Window {
  readonly start: number;
  readonly end: number;
}

/** How much of [a, b] lies in the window. */
function overlap(a: number, b: number, window: Window): number {
  return Math.max(0, Math.min(b, window.end) - Math.max(a, window.start));
}

/** Slot time each loop's steps held within the window (a step still open counts to the window's end). */
function laneTime(steps: readonly LaneStep[], window: Window): Map<string, number> {
  const time = new Map<string, number>();
  for (const step of steps) {
    if (step.startedMs === null) continue;
    const held = overlap(step.startedMs, step.closedMs ?? window.end, window);
    time.set(step.loop, (time.get(step.loop) ?? 0) + held);
  }
  return time;
}

/** Each loop's share of the slot time all loops held in the window (0 where none was held). */
export function laneShares(steps: readonly LaneStep[], window: Window): Map<string, number> {
  const time = laneTime(steps, window);
  const total = [...time.values()].reduce((sum, value) => sum + value, 0);
  return new Map([...time].map(([loop, value]) => [loop, total > 0 ? value / total : 0]));
}

/** Whether `step` waited in its lane's queue at `t` (scheduled, not yet started). */
const waitingAt = (step: LaneStep, t: number): boolean =>
  step.scheduledMs <= t && (step.startedMs === null || step.startedMs > t);

/** Whether `step` held a lane slot at `t`. */
const heldAt = (step: LaneStep, t: number, end: number): boolean =>
  step.startedMs !== null && step.startedMs <= t && t < (step.closedMs ?? end);

/**
 * Each loop's share of the slot time held on a lane while every loop had a step waiting in that
 * lane's queue (sampled every `stepMs`, summed over lanes): the share fairness decides. A loop with
 * nothing queued cannot take its share, and the other takes the slots meanwhile, as it should.
 * Also the contended time (lane-seconds sampled). Loops are those of `loops`.
 */
export function contendedShares(
  steps: readonly LaneStep[],
  loops: readonly string[],
  window: Window,
  stepMs = 10,
): { shares: Map<string, number>; contendedMs: number } {
  const held = new Map(loops.map((loop) => [loop, 0]));
  let contendedMs = 0;
  for (const queue of new Set(steps.map((step) => step.queue))) {
    const onLane = steps.filter((step) => step.queue === queue);
    const byLoop = loops.map((loop) => onLane.filter((step) => step.loop === loop));
    for (let t = window.start; t < window.end; t += stepMs) {
      if (!byLoop.every((own) => own.some((step) => waitingAt(step, t)))) continue;
      contendedMs += stepMs;
      loops.forEach((loop, index) => {
        const count = (byLoop[index] ?? []).filter((step) => heldAt(step, t, window.end)).length;
        held.set(loop, (held.get(loop) ?? 0) + count * stepMs);
      });
    }
  }
  const total = [...held.values()].reduce((sum, value) => sum + value, 0);
  return { shares: new Map([...held].map(([loop, value]) => [loop, total > 0 ? value / total : 0])), contendedMs };
}

/**
 * Each loop's share of the lane steps started while another loop had a step waiting in the same
 * lane's queue: what the server's fairness divides by weight (tasks, whatever their length).
 */
export function contendedStarts(steps: readonly LaneStep[], window: Window): Map<string, number> {
  const started = new Map<string, number>();
  for (const step of steps) {
    const at = step.startedMs;
    if (at === null || at < window.start || at > window.end) continue;
    const rival = steps.some(
      (other) => other.loop !== step.loop && other.queue === step.queue && waitingAt(other, at - 1),
    );
    if (rival) started.set(step.loop, (started.get(step.loop) ?? 0) + 1);
  }
  const total = [...started.values()].reduce((sum, value) => sum + value, 0);
  return new Map([...started].map(([loop, count]) => [loop, total > 0 ? count / total : 0]));
}

/** Each loop's weight over the weights' sum: its share of a lane shared by weight. */
export function weightShares(weights: ReadonlyMap<string, number>): Map<string, number> {
  const total = [...weights.values()].reduce((sum, value) => sum + value, 0);
  return new Map([...weights].map(([loop, weight]) => [loop, weight / total]));
}

/** |share / weight share - 1| in percent: how far a loop's share of the lanes was from its weight's. */
export function shareDeviationPercent(share: number, weightShare: number): number {
  return Math.abs(share / weightShare - 1) * 100;
}

/** Where a wait is measured from: the step's scheduling, or its child's start (a reserve check: when it was due). */
export type WaitFrom = 'scheduled' | 'child-start';

/** The queue waits (ms) of a loop's steps of `type` that started in the window. */
export function waits(
  steps: readonly LaneStep[],
  loop: string,
  type: string,
  window: Window,
  from: WaitFrom = 'scheduled',
): number[] {
  return steps
    .filter((step) => step.loop === loop && step.type === type && step.startedMs !== null)
    .filter((step) => (step.startedMs as number) >= window.start && (step.startedMs as number) <= window.end)
    .map((step) => (step.startedMs as number) - (from === 'scheduled' ? step.scheduledMs : step.childStartMs));
}

/** A loop's completed trainings in the window, over its candidates per round, per hour of the window. */
export function roundsPerHour(
  steps: readonly LaneStep[],
  loop: string,
  candidatesPerRound: number,
  window: Window,
): number {
  const trained = steps.filter(
    (step) =>
      step.loop === loop &&
      step.type === 'trainRun' &&
      step.completed &&
      step.closedMs !== null &&
      step.closedMs >= window.start &&
      step.closedMs <= window.end,
  ).length;
  const hours = (window.end - window.start) / 3_600_000;
  return hours > 0 ? trained / candidatesPerRound / hours : 0;
}

/** Mean time a step of `type` held its slot, over those that started and closed (ms; null with none). */
export function meanHeld(steps: readonly LaneStep[], type: string): number | null {
  const held = steps
    .filter((step) => step.type === type && step.startedMs !== null && step.closedMs !== null)
    .map((step) => (step.closedMs as number) - (step.startedMs as number));
  return held.length === 0 ? null : held.reduce((sum, value) => sum + value, 0) / held.length;
}
