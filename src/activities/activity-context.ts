import { Context } from '@temporalio/activity';
import type { StepHeartbeat } from './subprocess.js';

/** What an activity's context offers a step: heartbeats, cancellation and a logger. */
export interface ActivityHooks {
  readonly heartbeat: ((details: StepHeartbeat) => void) | undefined;
  readonly signal: AbortSignal | undefined;
  readonly warn: (message: string, attributes?: Record<string, unknown>) => void;
}

/** The current activity's hooks; outside an activity (a plain call, a test) there are none. */
export function activityHooks(): ActivityHooks {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return { heartbeat: undefined, signal: undefined, warn: () => undefined };
  }
  return {
    heartbeat: (details) => context.heartbeat(details),
    signal: context.cancellationSignal,
    warn: (message, attributes) => {
      context.log.warn(message, attributes);
    },
  };
}
