// How a step on a lane (training, evaluation) is tried: its own failures count against
// loop.yaml `retries.<step>`, and a lane lost under it (its worker killed or preempted, its host
// gone, the lane stopped at once) counts apart, against `retries.lost_lane`: a spot fleet that
// loses a lane now and then never costs a run its attempts at training. An attempt a pause
// stopped (Temporal's activity pause: `champion-loop pause`, the Web UI) costs nothing either.
import { ActivityFailure, ApplicationFailure, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { isCancellation, log, patched, sleep } from '@temporalio/workflow';
import { failureText, laneUnavailable } from './lane-failure.js';
import { LANE_STOPPED } from '../contract/lane-job.js';
import { PAUSED_ATTEMPTS } from './patches.js';

/** What a lane was lost to, or null: the step's own failure. */
export function laneLoss(error: unknown): 'no heartbeat' | 'lane stopped' | null {
  if (!(error instanceof ActivityFailure)) return null;
  if (error.cause instanceof TimeoutFailure && error.cause.timeoutType === TimeoutType.HEARTBEAT) return 'no heartbeat';
  if (error.cause instanceof ApplicationFailure && error.cause.type === LANE_STOPPED) return 'lane stopped';
  return null;
}

/** The failure type the SDK reports for an attempt its activity's pause stopped. */
const ACTIVITY_PAUSE = 'ActivityPause';

/**
 * An attempt a pause stopped, seen by the workflow: the server holds a paused activity until it
 * is unpaused and reports nothing, but one unpaused before its lane's report of the stop arrived
 * fails with the SDK's `ActivityPause` (its retry policy allows one attempt).
 */
export function stoppedByPause(error: unknown): boolean {
  return (
    error instanceof ActivityFailure && error.cause instanceof ApplicationFailure && error.cause.type === ACTIVITY_PAUSE
  );
}

export interface LaneAttemptLimits {
  /** Failures of the step itself, at most (`retries.train`, `retries.evaluate`). */
  readonly attempts: number;
  /** Lanes lost under the step, sent again apart from `attempts` (`retries.lost_lane`). */
  readonly lostLanes: number;
  /** Failure types no attempt repeats (a command not found, a contract broken). */
  readonly nonRetryable: readonly string[];
}

/**
 * How a lane step ended, how many lanes it lost, what its lost attempts had of their GPU (seconds),
 * and why its lane was last lost (e.g. the lane has no codec key), null when none was.
 */
export type LaneAttempts<T> = (
  { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: unknown }
) & { readonly lost: number; readonly lostGpuSeconds: number; readonly lostTo: string | null };

/** The GPU seconds a lost attempt had: its lane's stop says them, a silent lane's last heartbeat (its command's time so far). */
function lostSeconds(error: unknown): number {
  if (!(error instanceof ActivityFailure)) return 0;
  const cause = error.cause;
  if (cause instanceof ApplicationFailure) {
    const seconds = (cause.details?.[0] as { gpuSeconds?: unknown } | undefined)?.gpuSeconds;
    return typeof seconds === 'number' && Number.isFinite(seconds) ? seconds : 0;
  }
  if (cause instanceof TimeoutFailure) {
    const beat = cause.lastHeartbeatDetails as { pid?: unknown; elapsedMs?: unknown } | undefined;
    return typeof beat?.elapsedMs === 'number' && typeof beat.pid === 'number' && beat.pid > 0
      ? Math.round(beat.elapsedMs / 100) / 10
      : 0;
  }
  return 0;
}

/** Temporal's default retry backoff, which the step had when its activity retried itself: 1 s, doubling, at most 100 s. */
function backoffMs(failures: number): number {
  return Math.min(1000 * 2 ** (failures - 1), 100_000);
}

/**
 * Try a lane step until it succeeds, fails `limits.attempts` times, fails for good (a non-retryable
 * type), or no worker of the lane takes it (schedule-to-start: the generation moves the job).
 * `attempt` makes one try (an activity that retries nothing). A cancellation propagates.
 */
export async function tryOnLane<T>(
  attempt: () => Promise<T>,
  limits: LaneAttemptLimits,
  what: string,
): Promise<LaneAttempts<T>> {
  let failures = 0;
  let lost = 0;
  let lostGpuSeconds = 0;
  let lostTo: string | null = null;
  for (;;) {
    try {
      return { ok: true, value: await attempt(), lost, lostGpuSeconds, lostTo };
    } catch (error) {
      if (isCancellation(error)) throw error;
      if (laneUnavailable(error)) return { ok: false, error, lost, lostGpuSeconds, lostTo };
      // Asked only when such a failure is in history: runs without one replay as they were.
      if (stoppedByPause(error) && patched(PAUSED_ATTEMPTS)) {
        log.warn(`${what}: an attempt a pause stopped; sent again, apart from its attempts`);
        continue;
      }
      const loss = laneLoss(error);
      if (loss !== null) lostTo = failureText(error);
      if (loss !== null && lost < limits.lostLanes) {
        lost += 1;
        lostGpuSeconds = Math.round((lostGpuSeconds + lostSeconds(error)) * 10) / 10;
        log.warn(`${what}: its lane was lost (${loss}); sent again, apart from its attempts`, { lost });
        continue;
      }
      failures += 1;
      const cause = error instanceof ActivityFailure ? error.cause : error;
      const final =
        cause instanceof ApplicationFailure && (cause.nonRetryable || limits.nonRetryable.includes(cause.type ?? ''));
      if (final || failures >= limits.attempts) return { ok: false, error, lost, lostGpuSeconds, lostTo };
      await sleep(backoffMs(failures));
    }
  }
}
