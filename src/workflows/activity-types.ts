// The activities as workflows see them: types only, nothing of the activities enters the bundle.
// One map per kind of worker; a new activity joins one of them and then needs a summary
// (activity-summary.ts), which the compiler asks for from this type.
import type { laneActivities, orchestratorActivities, packageActivities } from '../activities/index.js';
import type { createChildOutcome } from '../activities/child-outcome.js';
import type { createRequestPackaging } from '../activities/request-packaging.js';
import type { probeLane } from '../activities/probe-lane.js';
import type { createStopPackaging } from '../activities/stop-packaging.js';
import type { registryActivities } from '../registry/index.js';

export type LoopActivities = typeof orchestratorActivities &
  typeof laneActivities &
  typeof packageActivities &
  typeof registryActivities & {
    requestPackaging: ReturnType<typeof createRequestPackaging>;
    stopPackaging: ReturnType<typeof createStopPackaging>;
    childOutcome: ReturnType<typeof createChildOutcome>;
    /** Registered by lane and orchestrator workers alike: a health check (lane-probe.ts). */
    probeLane: typeof probeLane;
  };
