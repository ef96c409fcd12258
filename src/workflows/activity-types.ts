// The activities as workflows see them: types only, nothing of the activities enters the bundle.
import type * as activities from '../activities/index.js';
import type { createChildOutcome } from '../activities/child-outcome.js';
import type { createRequestPackaging } from '../activities/request-packaging.js';
import type { createStopPackaging } from '../activities/stop-packaging.js';

export type LoopActivities = typeof activities & {
  requestPackaging: ReturnType<typeof createRequestPackaging>;
  stopPackaging: ReturnType<typeof createStopPackaging>;
  childOutcome: ReturnType<typeof createChildOutcome>;
};
