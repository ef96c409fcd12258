import { Client } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { warnOnShortRetention } from './retention.js';
import { connectionSettings, describeConnection } from '../workers/connection.js';
import { createLaneWorker } from '../workers/lane-worker.js';
import { installMetrics, metricsPort } from '../workers/metrics.js';
import { createOrchestratorWorker, flushLedgerCopies } from '../workers/orchestrator-worker.js';
import { createPackageWorker } from '../workers/package-worker.js';
import type { ConnectionFlags } from './connect.js';

/** The `worker` command's options beyond the connection. */
export interface WorkerCommandOptions extends ConnectionFlags {
  readonly device?: string;
  readonly host?: string;
  readonly slots: string;
  readonly minFreeGib: string;
  readonly minFreePids: string;
  readonly cpu?: boolean;
  readonly metricsPort?: string;
}

function number(text: string | undefined, flag: string, min: number): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value < min)
    throw new Error(`${flag} must be a number >= ${min} (got ${text ?? 'nothing'})`);
  return value;
}

/** Run one worker until SIGINT/SIGTERM; on either, running subprocesses are killed and the worker drains. */
export async function runWorker(kind: string, options: WorkerCommandOptions): Promise<void> {
  if (!['orchestrator', 'gpu', 'package'].includes(kind))
    throw new Error(`unknown worker kind '${kind}': use orchestrator, gpu or package`);
  const settings = connectionSettings(options);
  // The runtime (and with it the metrics endpoint) must exist before the first connection.
  const port = metricsPort(options.metricsPort);
  const metrics = port === null ? null : installMetrics(port);
  const connection = await NativeConnection.connect(settings.connectionOptions);
  const common = { connection, namespace: settings.namespace };
  let worker: Worker;
  let what: string;
  switch (kind) {
    case 'orchestrator':
      worker = await createOrchestratorWorker(common);
      what = 'orchestrator (workflows, CPU activities)';
      break;
    case 'gpu': {
      const lane = await createLaneWorker({
        ...common,
        device: number(options.device, '--device', 0),
        ...(options.host ? { host: options.host } : {}),
        slots: number(options.slots, '--slots', 1),
        minFreeGiB: number(options.minFreeGib, '--min-free-gib', 0),
        minFreePids: number(options.minFreePids, '--min-free-pids', 0),
        cpu: options.cpu === true,
        log: (message) => console.log(`[lane] ${message}`),
      });
      worker = lane.worker;
      what = `${options.cpu ? 'CPU' : 'GPU'} lane ${lane.queue}`;
      break;
    }
    default:
      worker = await createPackageWorker(common);
      what = 'package worker';
  }
  console.log(
    `${what} connected to ${describeConnection(settings)}${metrics ? `; metrics at http://${metrics}/metrics` : ''}`,
  );
  if (kind === 'orchestrator') {
    const client = new Client({ connection, namespace: settings.namespace });
    await warnOnShortRetention(client, (line) => console.warn(line));
  }
  await worker.run();
  // The loop's last rows reach the ledger copy before the connection goes.
  if (kind === 'orchestrator') await flushLedgerCopies(worker);
  await connection.close();
}
