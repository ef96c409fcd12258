import { proxyActivities } from '@temporalio/workflow';
import type * as activities from '../activities/probe-lane.js';
import { withSummaries } from './activity-summary.js';
import { stepOptions } from './step-options.js';

/** Run one command on a lane's task queue and return what it printed: a health check for workers. */
export async function laneProbe(input: { taskQueue: string; command: string[] }): Promise<activities.ProbeResult> {
  const { probeLane } = withSummaries(
    proxyActivities<typeof activities>(stepOptions('probeLane', { queue: input.taskQueue })),
  );
  return probeLane(input.command);
}
