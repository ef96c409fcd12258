// The activities as workflows see them: types only, nothing of the activities enters the bundle.
// One map per kind of worker, each held to the catalogue of steps (contract/steps.ts): a new
// activity is an entry there first, with its queue, limits and summary.
import type { laneActivities, orchestratorActivities, packageActivities } from '../activities/index.js';
import type { createChildOutcome } from '../activities/child-outcome.js';
import type { createRequestPackaging } from '../activities/request-packaging.js';
import type { probeLane } from '../activities/probe-lane.js';
import type { createStopPackaging } from '../activities/stop-packaging.js';
import type { StepName } from '../contract/steps.js';
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

/** `true` only when the two sets of names are the same. */
type SameNames<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

// Every activity workflows can call is a step of the catalogue, and every step an activity: the
// compiler stops here when one is added on one side only.
const everyActivityIsAStep: SameNames<keyof LoopActivities, StepName> = true;
void everyActivityIsAStep;
