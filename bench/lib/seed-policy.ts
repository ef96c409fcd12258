// The dispatch policy of the Python loop this project rebuilds, as a discrete-event simulation:
// pure, no I/O.
//
// The Python loop's main loop: each turn it drops finished job threads, and when a
// slot is free and a job is pending it launches one and sleeps `launch_gap_seconds`; otherwise it
// sleeps `poll_seconds`. Nothing wakes it early when a job ends (only SIGTERM sets the event),
// so it launches at most one job per turn, on turn boundaries. Defaults: 30 s and 30 s.
import type { LaneJob } from './slots.js';

export interface SeedPolicy {
  readonly pollMs: number;
  readonly launchGapMs: number;
}

/** `--poll-seconds 30 --launch-gap-seconds 30`, the Python loop's defaults. */
export const SEED_DEFAULTS: SeedPolicy = { pollMs: 30_000, launchGapMs: 30_000 };

export interface SeedSchedule {
  /** Each job as the Python loop would run it, in the given order, on lanes "0".."lanes-1". */
  readonly jobs: LaneJob[];
  /** First launch to last end. */
  readonly makespan: number;
}

/**
 * Run jobs of the given durations (in their order) through the Python loop with `lanes` slots.
 * A launch takes the slot that has been free longest, so the per-lane dispatch gaps are
 * first-in-first-out as dispatchGaps measures them. The first launch is at time 0.
 */
export function simulateSeedLoop(
  durations: readonly number[],
  lanes: number,
  policy: SeedPolicy = SEED_DEFAULTS,
): SeedSchedule {
  if (lanes < 1) throw new RangeError('lanes must be >= 1');
  const jobs: LaneJob[] = [];
  // Per slot: when its last job ends (-Infinity: never used).
  const slotEnd = Array.from({ length: lanes }, () => Number.NEGATIVE_INFINITY);
  let t = 0;
  let next = 0;
  for (;;) {
    // A thread is alive while its job runs: one ending exactly now has finished.
    const free = slotEnd.map((end, slot) => ({ end, slot })).filter(({ end }) => end <= t);
    if (next < durations.length && free.length > 0) {
      free.sort((a, b) => a.end - b.end || a.slot - b.slot);
      const slot = (free[0] as { slot: number }).slot;
      const end = t + (durations[next] as number);
      jobs.push({ lane: String(slot), start: t, end });
      slotEnd[slot] = end;
      next += 1;
      t += policy.launchGapMs;
      continue;
    }
    if (next >= durations.length && free.length === lanes) break;
    t += policy.pollMs;
  }
  const makespan = jobs.length === 0 ? 0 : Math.max(...jobs.map((job) => job.end)) - (jobs[0] as LaneJob).start;
  return { jobs, makespan };
}
