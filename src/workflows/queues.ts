import { COMMAND_NOT_FOUND } from '../contract/failures.js';
import { laneQueue } from '../config/lanes.js';
import { ORCHESTRATOR_QUEUE, PACKAGE_QUEUE } from '../contract/task-queues.js';

export { laneQueue, ORCHESTRATOR_QUEUE, PACKAGE_QUEUE };

/**
 * How long an orchestrator CPU activity (candidates, file checks, manifests, packaging requests,
 * a child's outcome) may go without a heartbeat. They take milliseconds, so the limit that counts
 * is this one: the orchestrator worker beats for each while it runs (`keepBeating`), and an
 * attempt whose worker died is retried on another orchestrator within it, where the 5-minute
 * start-to-close limit would hold the loop up for 5 minutes.
 */
export const CPU_HEARTBEAT_TIMEOUT = '10 seconds';

/** The activity options of every orchestrator CPU activity a workflow calls. */
export const CPU_ACTIVITY_OPTIONS = {
  taskQueue: ORCHESTRATOR_QUEUE,
  startToCloseTimeout: '5 minutes',
  heartbeatTimeout: CPU_HEARTBEAT_TIMEOUT,
  retry: { maximumAttempts: 5 },
} as const;

/** The split's builds (the generation's, and a run's that found it gone): loop.yaml's limit, two attempts, no retry of a command not there. */
export function splitActivityOptions(timeouts: { readonly split: string; readonly heartbeat: string }) {
  return {
    taskQueue: ORCHESTRATOR_QUEUE,
    startToCloseTimeout: timeouts.split,
    heartbeatTimeout: timeouts.heartbeat,
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: [COMMAND_NOT_FOUND] },
  };
}
