import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { packageActivities } from '../activities/index.js';
import { PACKAGE_QUEUE } from '../workflows/queues.js';

/** The package worker: runs one package command at a time, whatever the loop. */
export async function createPackageWorker(options: {
  connection: NativeConnection;
  namespace: string;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: PACKAGE_QUEUE,
    activities: packageActivities,
    maxConcurrentActivityTaskExecutions: 1,
  });
}
