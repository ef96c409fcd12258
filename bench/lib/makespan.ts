// Lower and upper bounds on the makespan of jobs on identical lanes, and the greedy schedule
// between them: pure, no I/O. Durations and results share one unit (milliseconds in the bench).

/** No schedule can finish sooner: max(total work / lanes, longest job). */
export function idealMakespan(work: readonly number[], lanes: number): number {
  if (work.length === 0) return 0;
  const total = work.reduce((sum, value) => sum + value, 0);
  return Math.max(total / lanes, Math.max(...work));
}

/** Graham's bound: any list schedule (no lane idles while a job waits) finishes by total/lanes + (1 - 1/lanes) * longest. */
export function grahamBound(work: readonly number[], lanes: number): number {
  if (work.length === 0) return 0;
  const total = work.reduce((sum, value) => sum + value, 0);
  return total / lanes + (1 - 1 / lanes) * Math.max(...work);
}

/**
 * The makespan of list scheduling with zero dispatch latency: jobs in the given order, each
 * started the moment a lane frees (the lane that frees first). What a perfect dispatcher
 * achieves with the loop's own job order.
 */
export function listScheduleMakespan(work: readonly number[], lanes: number): number {
  const free = Array.from({ length: lanes }, () => 0);
  for (const duration of work) {
    let lane = 0;
    for (let i = 1; i < free.length; i += 1) if ((free[i] as number) < (free[lane] as number)) lane = i;
    free[lane] = (free[lane] as number) + duration;
  }
  return Math.max(0, ...free);
}
