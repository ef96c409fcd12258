// The orchestrator activities a generation calls, with the limits of each kind.
import { proxyActivities, type ActivityInterfaceFor } from '@temporalio/workflow';
import type { LoopConfig } from '../../config/loop-config.js';
import type { LoopActivities } from '../activity-types.js';
import { withSummaries } from '../activity-summary.js';
import { CPU_ACTIVITY_OPTIONS, ORCHESTRATOR_QUEUE, splitActivityOptions } from '../queues.js';

type Activities = ActivityInterfaceFor<LoopActivities>;

export interface GenerationActivities {
  /** Milliseconds of CPU work: candidates, manifests, file checks, packaging requests. */
  readonly cpu: Activities;
  /** One heartbeating wait of an idle loop for a teacher file or the candidates file to change. */
  readonly idleWatch: Activities;
  /** The generation's split command. */
  readonly split: Activities;
}

export function generationActivities(config: LoopConfig): GenerationActivities {
  return {
    // Each call carries a one-line summary for the Web UI's history (activity-summary.ts).
    cpu: withSummaries(proxyActivities<LoopActivities>(CPU_ACTIVITY_OPTIONS)),
    idleWatch: withSummaries(
      proxyActivities<LoopActivities>({
        taskQueue: ORCHESTRATOR_QUEUE,
        startToCloseTimeout: '70 minutes',
        heartbeatTimeout: '1 minute',
        retry: { maximumAttempts: 3 },
      }),
    ),
    split: withSummaries(proxyActivities<LoopActivities>(splitActivityOptions(config.timeouts))),
  };
}
