// The orchestrator worker's activities: the catalogue's orchestrator steps (contract/steps.ts),
// those that start or signal workflows made with the worker's client, and the steps of
// milliseconds kept heartbeating while they run, so a worker killed mid-call costs their
// 10-second heartbeat timeout, not their start-to-close limit.
import type { Client } from '@temporalio/client';
import { orchestratorActivities } from '../activities/index.js';
import { keepBeating } from '../activities/support/keep-beating.js';
import { probeLane } from '../activities/probe-lane.js';
import { createChildOutcome } from '../activities/child-outcome.js';
import { createRequestPackaging } from '../activities/request-packaging.js';
import { createStopPackaging } from '../activities/stop-packaging.js';
import { STEPS } from '../contract/steps.js';
import { workerSteps } from '../contract/worker-steps.js';

/** Every activity the orchestrator worker registers, each step the catalogue marks `beats` heartbeating. */
export function orchestratorWorkerActivities(client: Client) {
  const steps = workerSteps('orchestrator', {
    ...orchestratorActivities,
    requestPackaging: createRequestPackaging(client),
    stopPackaging: createStopPackaging(client),
    childOutcome: createChildOutcome(client),
    probeLane,
  });
  const beating = Object.fromEntries(
    Object.entries(steps).filter(([name]) => (STEPS[name as keyof typeof steps] as { beats?: true }).beats === true),
  ) as Partial<typeof steps>;
  return { ...steps, ...keepBeating(beating) };
}
