// The task queues workflows and activities both name: where the orchestrator's workflows run (an
// activity starting the packaging workflow names it too) and the package worker's queue.

/** The orchestrator's task queue: every workflow and the CPU activities (candidates, split, configs). */
export const ORCHESTRATOR_QUEUE = 'champion-loop';

/** The package worker's task queue: one package command at a time. */
export const PACKAGE_QUEUE = 'champion-loop.package';
