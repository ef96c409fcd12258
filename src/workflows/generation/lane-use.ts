// How long each lane sat with no job of this loop, or with jobs that all waited for GPU memory
// (lane-waits.ts), and the GPU time the loop's training used: what `status` shows of a loop's GPU
// use. Pure; the generation notes them as its flights change and its jobs report.
import { settleWaits, spanOf, waitIdleSoFar, type LaneSpan, type LaneWaits } from './lane-waits.js';

/** One lane's idle time since the loop first saw it (workflow time, epoch ms). */
export interface LaneUse {
  readonly sinceMs: number;
  /** Idle time before `idleSince`. */
  readonly idleMs: number;
  /** When it last went idle; null while a job of the loop runs on it. */
  readonly idleSince: number | null;
  /** Time its jobs all waited for GPU memory (absent in carries from before it, and until a job reported). */
  readonly waits?: LaneWaits;
}

/** Each lane's use once `open` (the loop's jobs in flight, by lane) holds at `nowMs`, its memory waits settled as far as they can be. */
export function noteLaneUse(
  uses: Readonly<Record<string, LaneUse>>,
  lanes: readonly string[],
  open: ReadonlyMap<string, readonly LaneSpan[]>,
  nowMs: number,
): Record<string, LaneUse> {
  const next: Record<string, LaneUse> = {};
  for (const lane of lanes) {
    const use = uses[lane] ?? { sinceMs: nowMs, idleMs: 0, idleSince: nowMs };
    const jobs = open.get(lane) ?? [];
    const working = jobs.length > 0;
    let noted = use;
    if (working && use.idleSince !== null)
      noted = { ...use, idleMs: use.idleMs + (nowMs - use.idleSince), idleSince: null };
    else if (!working && use.idleSince === null) noted = { ...use, idleSince: nowMs };
    // Counted from the first look on (a carry from before it counted no memory wait before that).
    const waits = noted.waits ?? { waitIdleMs: 0, settledMs: nowMs, ended: [] };
    next[lane] = { ...noted, waits: settleWaits(waits, jobs, nowMs) };
  }
  return next;
}

/**
 * A job of the loop left `lane` (it reported) at `nowMs`, on it since `sinceMs`, with the waits
 * for GPU memory its report carries: kept until its time is settled (lane-waits.ts).
 */
export function noteJobEnded(
  uses: Readonly<Record<string, LaneUse>>,
  lane: string,
  sinceMs: number,
  nowMs: number,
  waits: unknown,
): Record<string, LaneUse> {
  const use = uses[lane];
  if (use?.waits === undefined) return { ...uses };
  const ended = [...use.waits.ended, spanOf(sinceMs, nowMs, waits)];
  return { ...uses, [lane]: { ...use, waits: { ...use.waits, ended } } };
}

/**
 * A lane's idle time up to `nowMs` (no job of the loop on it, or every one waiting for GPU
 * memory; `open`: the loop's jobs on it now, working until they report), and the time it has been watched.
 */
export function idleSoFar(
  use: LaneUse,
  nowMs: number,
  open: readonly LaneSpan[] = [],
): { readonly idleMs: number; readonly watchedMs: number; readonly waitMs: number } {
  const waitMs = use.waits === undefined ? 0 : waitIdleSoFar(use.waits, open, nowMs);
  return {
    idleMs: use.idleMs + (use.idleSince === null ? 0 : Math.max(0, nowMs - use.idleSince)) + waitMs,
    watchedMs: Math.max(0, nowMs - use.sinceMs),
    waitMs,
  };
}

/**
 * The GPU time the loop's training runs used (their rows' `gpu_seconds`), and what it cost (their
 * `gpu_usd`): in its current generation, and in all. The costs are absent in carries from before them.
 */
export interface TrainingGpu {
  readonly generation: number;
  readonly seconds: number;
  readonly loopSeconds: number;
  readonly usd?: number;
  readonly loopUsd?: number;
}

/** `gpu` with one run row's GPU seconds and cost added (a row of an earlier generation counts in the loop's only). */
export function addTrainingGpu(
  gpu: TrainingGpu,
  current: number,
  row: { readonly generation: number; readonly seconds: number; readonly usd?: number },
): TrainingGpu {
  const base =
    gpu.generation === current ? gpu : { ...gpu, generation: current, seconds: 0, ...(gpu.usd ? { usd: 0 } : {}) };
  const inThis = row.generation === current;
  const cost =
    row.usd === undefined
      ? {}
      : { usd: (base.usd ?? 0) + (inThis ? row.usd : 0), loopUsd: (base.loopUsd ?? 0) + row.usd };
  return {
    ...base,
    seconds: base.seconds + (inThis ? row.seconds : 0),
    loopSeconds: base.loopSeconds + row.seconds,
    ...cost,
  };
}
