// How long each lane sat with no job of this loop, and the GPU time the loop's training used:
// what `status` shows of a loop's GPU use. Pure; the generation notes them as its flights change.

/** One lane's idle time since the loop first saw it (workflow time, epoch ms). */
export interface LaneUse {
  readonly sinceMs: number;
  /** Idle time before `idleSince`. */
  readonly idleMs: number;
  /** When it last went idle; null while a job of the loop runs on it. */
  readonly idleSince: number | null;
}

/** Each lane's use once `busy` (jobs in flight, by lane) holds at `nowMs`. */
export function noteLaneUse(
  uses: Readonly<Record<string, LaneUse>>,
  lanes: readonly string[],
  busy: ReadonlyMap<string, number>,
  nowMs: number,
): Record<string, LaneUse> {
  const next: Record<string, LaneUse> = {};
  for (const lane of lanes) {
    const use = uses[lane] ?? { sinceMs: nowMs, idleMs: 0, idleSince: nowMs };
    const working = (busy.get(lane) ?? 0) > 0;
    if (working && use.idleSince !== null)
      next[lane] = { ...use, idleMs: use.idleMs + (nowMs - use.idleSince), idleSince: null };
    else if (!working && use.idleSince === null) next[lane] = { ...use, idleSince: nowMs };
    else next[lane] = use;
  }
  return next;
}

/** A lane's idle time up to `nowMs`, and the time it has been watched. */
export function idleSoFar(use: LaneUse, nowMs: number): { readonly idleMs: number; readonly watchedMs: number } {
  return {
    idleMs: use.idleMs + (use.idleSince === null ? 0 : Math.max(0, nowMs - use.idleSince)),
    watchedMs: Math.max(0, nowMs - use.sinceMs),
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
