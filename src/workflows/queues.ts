import { laneQueue } from '../config/lanes.js';

/** The orchestrator's task queue: every workflow and the CPU activities (candidates, split, configs). */
export const ORCHESTRATOR_QUEUE = 'champion-loop';

/** The package worker's task queue: one package command at a time. */
export const PACKAGE_QUEUE = 'champion-loop.package';

export { laneQueue };
