// One way to run a step on a job's lane, for every kind of job (training runs, reserve checks,
// teacher builds): the step's catalogue entry (contract/steps.ts) under the job's limits, on the
// job's lane, each call tried once, and the step repeated by tryOnLane (lane-attempts.ts), a lost
// lane counted apart from its attempts.
import { patched, proxyActivities } from '@temporalio/workflow';
import type { ActivityOptions } from '@temporalio/common';
import { DEFAULT_LOST_LANE_SENDS } from '../config/lanes.js';
import { STEPS, type LaneStepName } from '../contract/steps.js';
import type { LoopActivities } from './activity-types.js';
import { withSummaries } from './activity-summary.js';
import type { JobInput } from './job-input.js';
import { tryOnLane, type LaneAttempts } from './lane-attempts.js';
import { LANE_STEP_RETRIES } from './patches.js';
import { stepPriority } from './step-priority.js';
import { stepOptions, type LoopLimits } from './step-options.js';

/** A lane step's limits under a loop, with the loop.yaml keys that set them (for the messages that name them). */
export function laneLimits(name: LaneStepName, loop: LoopLimits) {
  const { startToClose, attempts, final } = STEPS[name].limits;
  return {
    timeout: loop.timeouts[startToClose.timeouts],
    timeoutKey: `timeouts.${startToClose.timeouts}`,
    attempts: loop.retries[attempts.retries],
    attemptsKey: `retries.${attempts.retries}`,
    final,
  } as const;
}

/** A lane step's options for the job: its lane, its place in the lane's queue (its kind's priority, its loop's fairness key). */
function laneOptions(input: JobInput, name: LaneStepName): ActivityOptions {
  const { taskQueue, ...limits } = stepOptions(name, { loop: input, queue: input.lane });
  return { taskQueue, priority: stepPriority(input.loopId, STEPS[name].kind, input), ...limits };
}

/** The step as one call of it sees it: tried once, with its summary (the caller repeats it). */
function laneCall<N extends LaneStepName>(input: JobInput, name: N): LoopActivities[N] {
  const options = laneOptions(input, name);
  const once = {
    ...options,
    retry: { maximumAttempts: 1, nonRetryableErrorTypes: [...laneLimits(name, input).final] },
  };
  return withSummaries(proxyActivities<LoopActivities>(once))[name];
}

/**
 * Run a step on the job's lane until it succeeds, fails its attempts (loop.yaml `retries.<key>`),
 * fails for good, or no worker of the lane takes it (the generation then moves the job). A lane
 * lost under it (its worker killed, preempted, stopped at once) sends it again, up to loop.yaml
 * `retries.lost_lane` times, without costing it an attempt. `what` names it in the log.
 */
export function onLane<N extends LaneStepName, T>(
  input: JobInput,
  name: N,
  what: string,
  call: (step: LoopActivities[N]) => Promise<T>,
): Promise<LaneAttempts<T>> {
  const limits = laneLimits(name, input);
  return tryOnLane(
    () => call(laneCall(input, name)),
    {
      attempts: limits.attempts,
      lostLanes: input.retries.lost_lane ?? DEFAULT_LOST_LANE_SENDS,
      nonRetryable: limits.final,
    },
    what,
  );
}

/**
 * A step whose job reports one outcome (a reserve check, a teacher build): through `onLane`, its
 * last failure thrown. Histories from before patch lane-step-retries take the SDK's retries, as
 * their code did (`legacyFinal`: the failure types those retries never repeated).
 */
export async function onLaneOrThrow<N extends LaneStepName, T>(
  input: JobInput,
  name: N,
  what: string,
  call: (step: LoopActivities[N]) => Promise<T>,
  legacyFinal: readonly string[],
): Promise<T> {
  if (!patched(LANE_STEP_RETRIES)) {
    const retry = { maximumAttempts: laneLimits(name, input).attempts, nonRetryableErrorTypes: [...legacyFinal] };
    return call(withSummaries(proxyActivities<LoopActivities>({ ...laneOptions(input, name), retry }))[name]);
  }
  const done = await onLane(input, name, what, call);
  if (done.ok) return done.value;
  throw done.error;
}
