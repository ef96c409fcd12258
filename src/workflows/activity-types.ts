// The activities as workflows see them: types only, nothing of the activities enters the bundle.
import type * as activities from '../activities/index.js';
import type { createRequestPackaging } from '../activities/request-packaging.js';

export type LoopActivities = typeof activities & { requestPackaging: ReturnType<typeof createRequestPackaging> };
