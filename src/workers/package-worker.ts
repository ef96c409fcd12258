import type { DataConverter } from '@temporalio/common';
import { workerTracing } from '../tracing/tracing.js';
import type { NativeConnection } from '@temporalio/worker';
import { loopDataConverter } from '../codec/data-converter.js';
import { Worker } from '@temporalio/worker';
import { packageActivities } from '../activities/index.js';
import { registryActivities } from '../registry/index.js';
import { PACKAGE_QUEUE } from '../workflows/queues.js';
import { workerSteps } from '../contract/worker-steps.js';

/** The package worker: runs one package command at a time, whatever the loop, and registers packaged champions (loop.yaml mlflow). */
export async function createPackageWorker(options: {
  connection: NativeConnection;
  namespace: string;
  /** Payload encryption; the environment's (loopDataConverter) when not given. */
  dataConverter?: DataConverter;
}): Promise<Worker> {
  return Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    dataConverter: options.dataConverter ?? loopDataConverter(),
    taskQueue: PACKAGE_QUEUE,
    activities: workerSteps('package', { ...packageActivities, ...registryActivities }),
    maxConcurrentActivityTaskExecutions: 1,
    ...workerTracing(),
  });
}
