import { Context } from '@temporalio/activity';
import type { StepHeartbeat } from './step-types.js';

/** What an activity's context offers a step: heartbeats, cancellation and a logger. */
export interface ActivityHooks {
  readonly heartbeat: ((details: StepHeartbeat) => void) | undefined;
  readonly signal: AbortSignal | undefined;
  /** How often a step should heartbeat: well inside the activity's heartbeat timeout (5 s at most). */
  readonly heartbeatIntervalMs: number;
  readonly warn: (message: string, attributes?: Record<string, unknown>) => void;
  /** The activity's Temporal priority key (smaller is more urgent), as it was started; absent: none set. */
  readonly priorityKey?: number;
}

/** A step's heartbeat period when the heartbeat timeout leaves room for it. */
const HEARTBEAT_EVERY_MS = 5_000;

/**
 * A third of the heartbeat timeout, at most 5 s: a step that beat exactly as often as the timeout
 * (a loop.yaml `heartbeat: 5s`) would race the server's timer and lose whenever the worker is busy.
 */
export function heartbeatInterval(heartbeatTimeoutMs: number | undefined): number {
  if (heartbeatTimeoutMs === undefined || heartbeatTimeoutMs <= 0) return HEARTBEAT_EVERY_MS;
  return Math.max(100, Math.min(HEARTBEAT_EVERY_MS, Math.floor(heartbeatTimeoutMs / 3)));
}

/** The current activity's hooks; outside an activity (a plain call, a test) there are none. */
export function activityHooks(): ActivityHooks {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return { heartbeat: undefined, signal: undefined, heartbeatIntervalMs: HEARTBEAT_EVERY_MS, warn: () => undefined };
  }
  return {
    heartbeat: (details) => context.heartbeat(details),
    signal: context.cancellationSignal,
    heartbeatIntervalMs: heartbeatInterval(context.info.heartbeatTimeoutMs),
    warn: (message, attributes) => {
      context.log.warn(message, attributes);
    },
    priorityKey: context.info.priority?.priorityKey,
  };
}
