// The task queues workflow code names: a lane's (from its host and device), the orchestrator's and the
// package worker's. Which step runs on which is the catalogue's (contract/steps.ts, step-options.ts).
import { laneQueue } from '../config/lanes.js';
import { ORCHESTRATOR_QUEUE, PACKAGE_QUEUE } from '../contract/task-queues.js';

export { laneQueue, ORCHESTRATOR_QUEUE, PACKAGE_QUEUE };
