import type { LoopConfig } from '../config/loop-config.js';
import { laneQueue } from './queues.js';

/** A lane as the generation dispatches to it: a device's task queue and how many jobs it takes at once. */
export interface Lane {
  readonly queue: string;
  readonly slots: number;
}

/** The lanes a loop config declares. */
export function lanesOf(config: Pick<LoopConfig, 'lanes'>): Lane[] {
  return config.lanes.map((lane) => ({ queue: laneQueue(lane.host, lane.device), slots: lane.slots }));
}

/** What an hour of the GPU of the lane on `queue` costs (loop.yaml `usd_per_gpu_hour`), when it says. */
export function gpuHourPrice(config: Pick<LoopConfig, 'lanes'>, queue: string): number | undefined {
  return config.lanes.find((lane) => laneQueue(lane.host, lane.device) === queue)?.usd_per_gpu_hour;
}

/**
 * The lane for the next job: its preferred lane when that has a free slot, else the up lane with
 * the most free slots (first declared wins a tie); null when every lane is full or down.
 */
export function pickLane(
  lanes: readonly Lane[],
  busy: ReadonlyMap<string, number>,
  downUntil: Readonly<Record<string, number>>,
  now: number,
  preferred: string | null,
): Lane | null {
  const free = (lane: Lane) => lane.slots - (busy.get(lane.queue) ?? 0);
  const usable = lanes.filter((lane) => free(lane) > 0 && (downUntil[lane.queue] ?? 0) <= now);
  const wanted = usable.find((lane) => lane.queue === preferred);
  if (wanted) return wanted;
  let best: Lane | null = null;
  for (const lane of usable) if (best === null || free(lane) > free(best)) best = lane;
  return best;
}
