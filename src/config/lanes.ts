/** Task queue names start with this unless a loop chooses its own prefix. */
export const DEFAULT_QUEUE_PREFIX = 'champion-loop';

/**
 * The task queue of one GPU lane: `<prefix>.<host>.gpu<device>`, e.g. `champion-loop.gpu-a.gpu0`.
 * The GPU worker of that device polls it; the generation workflow dispatches to it.
 */
export function laneQueue(host: string, device: number): string;
export function laneQueue(prefix: string | undefined, host: string, device: number): string;
export function laneQueue(...args: [string, number] | [string | undefined, string, number]): string {
  const [prefix, host, device] = args.length === 2 ? [undefined, ...args] : args;
  return `${prefix ?? DEFAULT_QUEUE_PREFIX}.${host}.gpu${device}`;
}

/** loop.yaml `retries.lost_lane` when it is not set: lanes lost under one step that it is sent again after. */
export const DEFAULT_LOST_LANE_SENDS = 10;

/**
 * loop.yaml `priority` at most: how far one loop's lane steps may stand back behind other loops'
 * on shared lanes (0, the default, to this; workflows/step-priority.ts).
 */
export const LOOP_PRIORITY_MAX = 4;
