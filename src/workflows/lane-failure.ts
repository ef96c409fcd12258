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
