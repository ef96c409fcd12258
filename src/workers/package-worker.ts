import type { NativeConnection } from '@temporalio/worker';
import { Worker } from '@temporalio/worker';
import { packageActivities } from '../activities/index.js';
import { registryActivities } from '../registry/index.js';
import { PACKAGE_QUEUE } from '../workflows/queues.js';

/** The package worker: runs one package command at a time, whatever the loop, and registers packaged champions (loop.yaml mlflow). */
export async function createPackageWorker(options: {
  connection: NativeConnection;
  namespace: string;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    taskQueue: PACKAGE_QUEUE,
    activities: { ...packageActivities, ...registryActivities },
    maxConcurrentActivityTaskExecutions: 1,
  });
}
