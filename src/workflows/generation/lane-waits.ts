// The time a lane had jobs of the loop but none of them ran on its card: each waited for GPU
// memory on the slot it was given (the card did no work for the loop then). Pure. A job's waits
// are known when it reports (its steps' lane admissions, `memoryWaits` on the report), so time is
// settled only up to the start of the oldest job still in flight: before that every job on the
// lane has reported. A job still in flight counts as working until it reports.

/** A wait for GPU memory, from and to (epoch ms). */
type MemoryWait = readonly [number, number];

/** A job's time on a lane (from its dispatch to its report) and the waits for memory within it. */
export interface LaneSpan {
  readonly fromMs: number;
  readonly toMs: number;
  readonly waits: readonly MemoryWait[];
}

/** Jobs kept unsettled at most: past it, time is settled up to now, the jobs in flight counted as working. */
const MAX_UNSETTLED = 100;

/** The waits a report carries, checked (a malformed one is none) and clamped to the job's span. */
export function spanOf(fromMs: number, toMs: number, waits: unknown): LaneSpan {
  const clamped: MemoryWait[] = [];
  if (Array.isArray(waits))
    for (const wait of waits as unknown[]) {
      if (!Array.isArray(wait) || wait.length !== 2) continue;
      const [from, to] = wait as unknown[];
      if (typeof from !== 'number' || typeof to !== 'number' || !Number.isFinite(from) || !Number.isFinite(to))
        continue;
      const a = Math.max(fromMs, from);
      const b = Math.min(toMs, to);
      if (b > a) clamped.push([a, b]);
    }
  return { fromMs, toMs: Math.max(fromMs, toMs), waits: clamped };
}

/** Whether `span` works (is on the lane and not waiting for memory) at `ms`. */
function works(span: LaneSpan, ms: number): boolean {
  return span.fromMs <= ms && ms < span.toMs && !span.waits.some(([from, to]) => from <= ms && ms < to);
}

/**
 * The time in [`fromMs`, `toMs`) when at least one of `spans` was on the lane and none of them
 * worked: every job there waited for memory. Time with no job on the lane is not counted here.
 */
export function waitIdleIn(fromMs: number, toMs: number, spans: readonly LaneSpan[]): number {
  if (toMs <= fromMs || spans.length === 0) return 0;
  const cuts = new Set<number>([fromMs, toMs]);
  for (const span of spans)
    for (const ms of [span.fromMs, span.toMs, ...span.waits.flat()]) if (ms > fromMs && ms < toMs) cuts.add(ms);
  const times = [...cuts].sort((a, b) => a - b);
  let idle = 0;
  for (let at = 0; at + 1 < times.length; at += 1) {
    const a = times[at] as number;
    const b = times[at + 1] as number;
    const present = spans.some((span) => span.fromMs <= a && a < span.toMs);
    if (present && !spans.some((span) => works(span, a))) idle += b - a;
  }
  return idle;
}

/** A lane's memory-wait idle: settled up to `settledMs`, and the jobs that ended after it. */
export interface LaneWaits {
  readonly waitIdleMs: number;
  readonly settledMs: number;
  readonly ended: readonly LaneSpan[];
}

/**
 * `waits` settled up to the start of the oldest job still in flight (`openSinceMs`), or up to
 * `nowMs` when none is; past MAX_UNSETTLED ended jobs, up to `nowMs`, the open jobs working.
 */
export function settleWaits(waits: LaneWaits, open: readonly LaneSpan[], nowMs: number): LaneWaits {
  const oldest = Math.min(nowMs, ...open.map((span) => span.fromMs));
  const horizon = waits.ended.length > MAX_UNSETTLED ? nowMs : oldest;
  if (horizon <= waits.settledMs) return waits;
  const spans = horizon > oldest ? [...waits.ended, ...open] : waits.ended;
  return {
    waitIdleMs: waits.waitIdleMs + waitIdleIn(waits.settledMs, horizon, spans),
    settledMs: horizon,
    ended: waits.ended.filter((span) => span.toMs > horizon),
  };
}

/** The memory-wait idle up to `nowMs`: what is settled, and since then with the open jobs working. */
export function waitIdleSoFar(waits: LaneWaits, open: readonly LaneSpan[], nowMs: number): number {
  return waits.waitIdleMs + waitIdleIn(waits.settledMs, nowMs, [...waits.ended, ...open]);
}
