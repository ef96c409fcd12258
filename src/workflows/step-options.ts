// The activity options a workflow schedules each step with, read from the catalogue of steps
// (contract/steps.ts) and the loop's loop.yaml timeouts and retries: its queue, its limits, its
// attempts and the failures no attempt repeats. A step's options are its entry's and nothing else,
// so histories record the same ScheduleActivityTask commands whichever workflow calls it.
import { proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { ActivityOptions, LocalActivityOptions, RetryPolicy } from '@temporalio/common';
import type { LoopConfig } from '../config/loop-config.js';
import { STEPS, type Step, type StepLimit, type StepName } from '../contract/steps.js';
import { ORCHESTRATOR_QUEUE, PACKAGE_QUEUE } from '../contract/task-queues.js';
import { definedFields } from '../support/defined-fields.js';
import type { LoopActivities } from './activity-types.js';
import { withSummaries } from './activity-summary.js';

/** What a step's limits are read from: the loop's loop.yaml `timeouts` and `retries`. */
export interface LoopLimits {
  readonly timeouts: LoopConfig['timeouts'];
  readonly retries: LoopConfig['retries'];
}

/** Where a step is scheduled from: the loop whose loop.yaml sets its limits, the queue its caller names (a lane step's, a probe's). */
interface StepPlace {
  readonly loop?: LoopLimits;
  readonly queue?: string;
}

/** The loop's limits, for a step whose entry reads them. */
function loopOf(loop: LoopLimits | undefined, what: string): LoopLimits {
  if (loop === undefined) throw new TypeError(`${what} is read from loop.yaml, and no loop was given`);
  return loop;
}

/** A limit's duration: written in the catalogue, or loop.yaml's. */
function durationOf(limit: StepLimit, loop: LoopLimits | undefined): string {
  return typeof limit === 'string' ? limit : loopOf(loop, `timeouts.${limit.timeouts}`).timeouts[limit.timeouts];
}

/** How many attempts a step gets: written in the catalogue, loop.yaml's, or none said (retried until its schedule-to-close limit). */
function attemptsOf(step: Step, loop: LoopLimits | undefined): number | undefined {
  const { attempts } = step.limits;
  return typeof attempts === 'object'
    ? loopOf(loop, `retries.${attempts.retries}`).retries[attempts.retries]
    : attempts;
}

/** A step's retry policy: its backoff, its attempts, the failures none repeats. */
function retryOf(step: Step, loop: LoopLimits | undefined): RetryPolicy {
  const { backoff, final } = step.limits;
  return {
    ...backoff,
    ...definedFields({ maximumAttempts: attemptsOf(step, loop) }),
    ...definedFields({ nonRetryableErrorTypes: final && [...final] }),
  };
}

/**
 * A step's activity options under a loop: its queue (the orchestrator's or the package queue; a
 * lane step and a probe are given theirs), its limits and its retry policy.
 */
export function stepOptions(name: StepName, { loop, queue }: StepPlace = {}): ActivityOptions {
  const step: Step = STEPS[name];
  const { startToClose, heartbeat, scheduleToStart } = step.limits;
  const fixed =
    step.queue === 'orchestrator' ? ORCHESTRATOR_QUEUE : step.queue === 'package' ? PACKAGE_QUEUE : undefined;
  const taskQueue = queue ?? fixed;
  if (taskQueue === undefined) throw new TypeError(`step ${name} runs on a queue its caller names, and none was named`);
  return {
    taskQueue,
    ...definedFields({ scheduleToStartTimeout: scheduleToStart && durationOf(scheduleToStart, loop) }),
    startToCloseTimeout: durationOf(startToClose, loop),
    ...definedFields({ heartbeatTimeout: heartbeat && durationOf(heartbeat, loop) }),
    retry: retryOf(step, loop),
  };
}

/** A local step's options (it runs in the calling workflow's worker: no queue, no heartbeat). */
export function localStepOptions(name: StepName, loop?: LoopLimits): LocalActivityOptions {
  const step: Step = STEPS[name];
  return { startToCloseTimeout: durationOf(step.limits.startToClose, loop), retry: retryOf(step, loop) };
}

/**
 * The catalogue's steps of fixed queues as a workflow calls them: each with its own options under
 * the loop and its summary (activity-summary.ts).
 */
export function stepCalls(loop: LoopLimits): ActivityInterfaceFor<LoopActivities> {
  const made = new Map<string, unknown>();
  return new Proxy({} as ActivityInterfaceFor<LoopActivities>, {
    get(_, name) {
      if (typeof name !== 'string' || !Object.hasOwn(STEPS, name)) return undefined;
      if (!made.has(name)) {
        const proxy: Record<string, unknown> = withSummaries(proxyActivities(stepOptions(name as StepName, { loop })));
        made.set(name, proxy[name]);
      }
      return made.get(name);
    },
  });
}
