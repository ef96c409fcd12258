// One way to run a step on a job's lane, for every kind of job (training runs, reserve checks,
// teacher builds): the lane's activities with the job's limits, each call tried once, and the
// step repeated by tryOnLane (lane-attempts.ts), a lost lane counted apart from its attempts.
import { patched, proxyActivities } from '@temporalio/workflow';
import { DEFAULT_LOST_LANE_SENDS } from '../config/lanes.js';
import type { LoopActivities } from './activity-types.js';
import { withSummaries } from './activity-summary.js';
import type { JobInput } from './job-input.js';
import { tryOnLane, type LaneAttempts } from './lane-attempts.js';
import { COMMAND_NOT_FOUND, CONTRACT_ERROR } from '../contract/failures.js';
import { LANE_STEP_RETRIES } from './patches.js';
import { stepPriority, type StepKind } from './step-priority.js';

/** Failures no attempt of a lane step repeats: a command that cannot start, a contract broken. */
export const FINAL_LANE_FAILURES: readonly string[] = [COMMAND_NOT_FOUND, CONTRACT_ERROR];

/**
 * The lane's activities for one call: its queue, the job's limits, one try (the caller repeats),
 * and the step's place in the lane's queue (its kind's priority, its loop's fairness key).
 */
function laneActivities(input: JobInput, timeout: string, kind: StepKind) {
  return withSummaries(
    proxyActivities<LoopActivities>({
      taskQueue: input.lane,
      priority: stepPriority(input.loopId, kind, input),
      scheduleToStartTimeout: input.timeouts.schedule_to_start,
      startToCloseTimeout: timeout,
      heartbeatTimeout: input.timeouts.heartbeat,
      retry: { maximumAttempts: 1, nonRetryableErrorTypes: [...FINAL_LANE_FAILURES] },
    }),
  );
}

/** The lane's activities as one call sees them. */
export type LaneCalls = ReturnType<typeof laneActivities>;

/** What one lane step is: its kind, its limit, its attempts (loop.yaml `retries.<step>`), and its name in the log. */
export interface LaneStep {
  /** Where it stands in the lane's queue (step-priority.ts). */
  readonly kind: StepKind;
  readonly timeout: string;
  readonly attempts: number;
  readonly what: string;
}

/**
 * Run a step on the job's lane until it succeeds, fails its attempts, fails for good, or no worker
 * of the lane takes it (the generation then moves the job). A lane lost under it (its worker
 * killed, preempted, stopped at once) sends it again, up to loop.yaml `retries.lost_lane` times,
 * without costing it an attempt.
 */
export function onLane<T>(
  input: JobInput,
  step: LaneStep,
  call: (activities: LaneCalls) => Promise<T>,
): Promise<LaneAttempts<T>> {
  return tryOnLane(
    () => call(laneActivities(input, step.timeout, step.kind)),
    {
      attempts: step.attempts,
      lostLanes: input.retries.lost_lane ?? DEFAULT_LOST_LANE_SENDS,
      nonRetryable: FINAL_LANE_FAILURES,
    },
    step.what,
  );
}

/**
 * A step whose job reports one outcome (a reserve check, a teacher build): through `onLane`, its
 * last failure thrown. Histories from before patch lane-step-retries take the SDK's retries, as
 * their code did (`legacyFinal`: the failure types those retries never repeated).
 */
export async function onLaneOrThrow<T>(
  input: JobInput,
  step: LaneStep,
  call: (activities: LaneCalls) => Promise<T>,
  legacyFinal: readonly string[],
): Promise<T> {
  if (!patched(LANE_STEP_RETRIES)) {
    return call(
      withSummaries(
        proxyActivities<LoopActivities>({
          taskQueue: input.lane,
          priority: stepPriority(input.loopId, step.kind, input),
          scheduleToStartTimeout: input.timeouts.schedule_to_start,
          startToCloseTimeout: step.timeout,
          heartbeatTimeout: input.timeouts.heartbeat,
          retry: { maximumAttempts: step.attempts, nonRetryableErrorTypes: [...legacyFinal] },
        }),
      ),
    );
  }
  const done = await onLane(input, step, call);
  if (done.ok) return done.value;
  throw done.error;
}
