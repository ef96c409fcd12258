// Dispatch gaps on lanes: how long a freed slot waited for its next job. Pure, no I/O.

/** One job as it ran on a lane (times in ms on one clock). */
export interface LaneJob {
  readonly lane: string;
  readonly start: number;
  readonly end: number;
}

/** One dispatch: a slot freed by a job's end, taken by the next job's start. */
export interface Dispatch {
  readonly lane: string;
  readonly freedAt: number;
  readonly startedAt: number;
  readonly gap: number;
  /** Index (in the given list) of the job that freed the slot, and of the one that took it. */
  readonly previous: number;
  readonly next: number;
}

/**
 * The dispatch gaps of a schedule. On a lane of `slots` slots each job takes the slot that has
 * been free longest (first in, first out); a lane's first `slots` jobs take slots that were
 * never used and are not dispatches. With one slot: the next start minus the previous end.
 */
export function dispatchGaps(jobs: readonly LaneJob[], slots: (lane: string) => number = () => 1): Dispatch[] {
  const byLane = new Map<string, number[]>();
  jobs.forEach((job, index) => {
    const list = byLane.get(job.lane) ?? [];
    list.push(index);
    byLane.set(job.lane, list);
  });
  const dispatches: Dispatch[] = [];
  for (const [lane, indexes] of byLane) {
    indexes.sort((a, b) => (jobs[a] as LaneJob).start - (jobs[b] as LaneJob).start);
    let unused = slots(lane);
    // Freed slots as (time, job index), oldest first.
    const freed: [number, number][] = [];
    for (const index of indexes) {
      const job = jobs[index] as LaneJob;
      if (unused > 0) {
        unused -= 1;
      } else {
        freed.sort((a, b) => a[0] - b[0]);
        const slot = freed.shift();
        if (slot)
          dispatches.push({
            lane,
            freedAt: slot[0],
            startedAt: job.start,
            gap: job.start - slot[0],
            previous: slot[1],
            next: index,
          });
      }
      freed.push([job.end, index]);
    }
  }
  return dispatches.sort((a, b) => a.startedAt - b.startedAt);
}
