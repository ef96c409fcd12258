// Which runs of a loop a reset abandoned. A reset (the Web UI, `temporal workflow reset`) starts a
// new run from a point of its base run: the loop is rewound to that point, and what it did after it
// is a timeline that is no longer the loop's. That is the base run itself (the reset run holds its
// history up to the point again) and every run of the workflow id started after the base and before
// the reset run: the base's successors by continue-as-new, the newest of them terminated by the
// reset, and any later start of the loop. Their rows stay in history, and are left out of the
// ledger (and removed from its copy as "of a timeline a reset replaced").

/** A run of the loop's workflow id as listed, with the base run when it is the result of a reset. */
export interface ListedResetRun {
  readonly runId: string;
  /** Start time, ms since the epoch. */
  readonly start: number;
  /** The run this one was reset from; null when it is not the result of a reset. */
  readonly resetFrom: string | null;
}

/** The span of start times a reset abandoned: [the base run's start, the reset run's start). */
export interface ResetSpan {
  readonly from: number;
  readonly until: number;
}

/**
 * The span a reset run abandoned; null when it is not a reset or its base run is no longer listed
 * (retention or an operator deleted it: its successors, older than the reset run, went before it
 * or with it, and the base alone is then all a listing could still show).
 */
export function resetSpan(
  run: ListedResetRun,
  listed: readonly Pick<ListedResetRun, 'runId' | 'start'>[],
): ResetSpan | null {
  if (run.resetFrom === null) return null;
  const base = listed.find((other) => other.runId === run.resetFrom);
  return base === undefined ? null : { from: base.start, until: run.start };
}

/** Whether a run started within a span some reset abandoned. */
export function abandonedBy(spans: readonly ResetSpan[], run: Pick<ListedResetRun, 'start'>): boolean {
  return spans.some((span) => run.start >= span.from && run.start < span.until);
}

/** The runs of a listing that resets abandoned (resets of abandoned runs count: they were resets too). */
export function abandonedRuns(runs: readonly ListedResetRun[]): Set<string> {
  const spans = runs.map((run) => resetSpan(run, runs)).filter((span) => span !== null);
  const abandoned = new Set(runs.filter((run) => abandonedBy(spans, run)).map((run) => run.runId));
  // A base run no longer listed is still named by its reset: it is not the loop's either.
  for (const run of runs) if (run.resetFrom !== null) abandoned.add(run.resetFrom);
  return abandoned;
}
