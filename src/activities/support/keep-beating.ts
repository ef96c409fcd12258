import { Context } from '@temporalio/activity';
import { heartbeatInterval } from './activity-context.js';

// The orchestrator's CPU activities take milliseconds and never heartbeat by themselves; their
// workflows give them a short heartbeat timeout so that a worker killed mid-call costs seconds,
// not the start-to-close limit. This keeps each one beating while it runs, however long a slow
// disk makes it.

// eslint-disable-next-line @typescript-eslint/no-explicit-any -- any activity function
type ActivityFunction = (...args: any[]) => Promise<unknown>;

/** The same activities, each heartbeating every third of its heartbeat timeout while it runs. */
export function keepBeating<T extends Record<string, ActivityFunction>>(activities: T): T {
  const beating: Record<string, ActivityFunction> = {};
  for (const [name, run] of Object.entries(activities)) {
    beating[name] = async (...args: unknown[]) => {
      const stop = beat();
      try {
        return await run(...args);
      } finally {
        stop();
      }
    };
  }
  return beating as T;
}

/** Start beating for the current activity; returns what stops it. Outside an activity or in a local one: nothing. */
function beat(): () => void {
  let context: Context;
  try {
    context = Context.current();
  } catch {
    return () => undefined;
  }
  if (context.info.isLocal) return () => undefined;
  const timer = setInterval(() => context.heartbeat(), heartbeatInterval(context.info.heartbeatTimeoutMs));
  timer.unref();
  return () => clearInterval(timer);
}
