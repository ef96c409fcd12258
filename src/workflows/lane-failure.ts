import { ActivityFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';

/** Whether an activity failed because no worker of its lane picked it up in time. */
export function laneUnavailable(error: unknown): boolean {
  return (
    error instanceof ActivityFailure &&
    error.cause instanceof TimeoutFailure &&
    error.cause.timeoutType === TimeoutType.SCHEDULE_TO_START
  );
}

/** One line saying why an activity failed, for run and eval rows. */
export function failureText(error: unknown): string {
  if (error instanceof ActivityFailure && error.cause) return `${error.activityType}: ${error.cause.message}`;
  return error instanceof Error ? error.message : String(error);
}

/** The loop.yaml limits a lane step ran under, to name in its failure. */
export interface StepLimits {
  /** e.g. `timeouts.train`, and its value, e.g. `24h`. */
  readonly timeoutKey: string;
  readonly timeout: string;
  readonly heartbeat: string;
  /** e.g. `retries.train`, and its value. */
  readonly attemptsKey: string;
  readonly attempts: number;
}

/**
 * Why a lane step failed, for run rows: a timeout names the loop.yaml limit that ended it (a hung
 * command still heartbeats, so only its start-to-close limit ends it), anything else as failureText.
 */
export function stepFailureText(error: unknown, limits: StepLimits): string {
  if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure) {
    const attempts = `the last of ${limits.attempts} attempt${limits.attempts === 1 ? '' : 's'} (${limits.attemptsKey})`;
    if (error.cause.timeoutType === TimeoutType.START_TO_CLOSE) {
      return `${error.activityType}: ${attempts} timed out: no result within ${limits.timeout} (${limits.timeoutKey}); the command was killed, see its log`;
    }
    if (error.cause.timeoutType === TimeoutType.HEARTBEAT) {
      return `${error.activityType}: ${attempts} lost its lane: no heartbeat within ${limits.heartbeat} (timeouts.heartbeat), the lane's worker died or stalled`;
    }
  }
  return failureText(error);
}

/** Why the split failed, for `status`: a timeout names the loop.yaml limit and what to do. */
export function splitFailureText(error: unknown, limit: string): string {
  if (error instanceof ActivityFailure && error.cause instanceof TimeoutFailure)
    return (
      `${error.activityType}: no split within ${limit} (timeouts.split), in both attempts; the split commands were ` +
      'killed (their log: <state_dir>/logs/). Raise timeouts.split in loop.yaml, or make the split faster'
    );
  return failureText(error);
}
