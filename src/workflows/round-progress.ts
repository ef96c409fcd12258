// Which rounds are finished: a round is finished once the next round has started and no run of
// it, or of an earlier round, is pending (the seed's round-ensemble condition).

/** Runs not yet final, by round. */
export type RoundProgress = Readonly<Record<string, number>>;

/** A round was planned with `runs` jobs. */
export function openRoundProgress(progress: RoundProgress, round: number, runs: number): RoundProgress {
  return { ...progress, [String(round)]: (progress[String(round)] ?? 0) + runs };
}

/** One run of a round became final. */
export function runFinal(progress: RoundProgress, round: number): RoundProgress {
  const key = String(round);
  return key in progress ? { ...progress, [key]: Math.max(0, (progress[key] ?? 0) - 1) } : progress;
}

/** Whether round `round` is finished while `current` is the latest planned round. */
export function roundFinished(progress: RoundProgress, round: number, current: number): boolean {
  if (round >= current) return false;
  return Object.entries(progress).every(([key, pending]) => Number(key) > round || pending === 0);
}
