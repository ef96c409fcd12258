// How a worker asks its task queues for work (the SDK's PollerBehavior, docs/operating.md,
// "Several loops on one fleet"). Autoscaling (the default): the SDK opens more long polls when the
// server's answers say the queue has a backlog (never more than the free slots) and lets them drop
// to one per kind of task when it is idle, so a fleet of many idle lanes holds fewer open polls.
// Fixed: the SDK's earlier behaviour, as many polls as the free slots allow up to a fixed maximum
// (10). Picked by CHAMPION_LOOP_POLLERS or `worker --pollers`.
import type { WorkerOptions } from '@temporalio/worker';

type PollerBehavior = NonNullable<WorkerOptions['activityTaskPollerBehavior']>;

export type PollerMode = 'autoscaling' | 'fixed';

const MODES: readonly PollerMode[] = ['autoscaling', 'fixed'];

/** The variable a worker process reads its poller mode from when no flag names one. */
export const POLLERS_ENV = 'CHAMPION_LOOP_POLLERS';

/** A poller mode from a flag or the environment (absent: autoscaling); anything else is refused. */
export function pollerMode(text: string | undefined, source = POLLERS_ENV): PollerMode {
  if (text === undefined || text === '') return 'autoscaling';
  if ((MODES as readonly string[]).includes(text)) return text as PollerMode;
  throw new Error(`${source} must be ${MODES.join(' or ')} (got ${JSON.stringify(text)})`);
}

/** The behavior of autoscaling pollers: one poll open while idle, more (up to the free slots) with a backlog. */
const AUTOSCALING: PollerBehavior = { type: 'autoscaling', minimum: 1, initial: 2 };

/**
 * A worker's poller options for `mode` (the environment's when not given). Fixed leaves the SDK's
 * defaults; autoscaling sets both kinds of task (a worker that runs no workflows polls none).
 */
export function pollerOptions(mode: PollerMode = pollerMode(process.env[POLLERS_ENV])): {
  workflowTaskPollerBehavior?: PollerBehavior;
  activityTaskPollerBehavior?: PollerBehavior;
} {
  if (mode === 'fixed') return {};
  return { workflowTaskPollerBehavior: AUTOSCALING, activityTaskPollerBehavior: AUTOSCALING };
}
