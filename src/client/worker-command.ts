import { Client } from '@temporalio/client';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { warnOnShortRetention } from './retention.js';
import { connectionSettings, describeConnection } from '../workers/connection.js';
import { hostname } from 'node:os';
import { loadLoopConfig } from '../config/load-loop-config.js';
import { readGpuMemory } from '../workers/gpu-memory.js';
import { admissionLine, laneCapacity, type LaneCapacity } from '../workers/lane-capacity.js';
import { createLaneWorker } from '../workers/lane-worker.js';
import { installMetrics, metricsPort } from '../workers/metrics.js';
import { createOrchestratorWorker, flushLedgerCopies } from '../workers/orchestrator-worker.js';
import { createPackageWorker } from '../workers/package-worker.js';
import type { ConnectionFlags } from './connect.js';

/** The `worker` command's options beyond the connection. */
export interface WorkerCommandOptions extends ConnectionFlags {
  readonly device?: string;
  readonly host?: string;
  readonly slots?: string;
  readonly minFreeGib?: string;
  readonly config?: string;
  readonly minFreePids: string;
  readonly cpu?: boolean;
  readonly metricsPort?: string;
}

/** A flag's number, or undefined when the flag was not given. */
function optionalNumber(text: string | undefined, flag: string, min: number): number | undefined {
  return text === undefined ? undefined : number(text, flag, min);
}

function number(text: string | undefined, flag: string, min: number): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value < min)
    throw new Error(`${flag} must be a number >= ${min} (got ${text ?? 'nothing'})`);
  return value;
}

interface LaneSettings {
  readonly device: number;
  readonly host: string;
  readonly capacity: LaneCapacity;
  readonly cpu: boolean;
}

/** A GPU lane's device, host and capacity (from its loop.yaml entry with --config, else the flags). */
async function laneSettings(options: WorkerCommandOptions): Promise<LaneSettings> {
  const device = number(options.device, '--device', 0);
  const host = options.host ?? hostname();
  const capacity = laneCapacity(
    {
      slots: optionalNumber(options.slots, '--slots', 1),
      minFreeGiB: optionalNumber(options.minFreeGib, '--min-free-gib', 0),
    },
    options.config ? { config: await loadLoopConfig(options.config), file: options.config, host, device } : null,
  );
  return { device, host, capacity, cpu: options.cpu === true };
}

/** Run one worker until SIGINT/SIGTERM; on either, running subprocesses are killed and the worker drains. */
export async function runWorker(kind: string, options: WorkerCommandOptions): Promise<void> {
  if (!['orchestrator', 'gpu', 'package'].includes(kind))
    throw new Error(`unknown worker kind '${kind}': use orchestrator, gpu or package`);
  // A lane's capacity is settled before anything connects: flags that disagree with loop.yaml are refused at once.
  const lane = kind === 'gpu' ? await laneSettings(options) : null;
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
      const { device, host, capacity, cpu } = lane as LaneSettings;
      const created = await createLaneWorker({
        ...common,
        device,
        host,
        slots: capacity.slots,
        minFreeGiB: capacity.minFreeGiB,
        minFreePids: number(options.minFreePids, '--min-free-pids', 0),
        cpu,
        log: (message) => console.log(`[lane] ${message}`),
      });
      // How it admits jobs, from a first reading of its device: a lane without a memory guard says so.
      console.log(admissionLine(created.queue, capacity, cpu ? null : await readGpuMemory(device)));
      worker = created.worker;
      what = `${cpu ? 'CPU' : 'GPU'} lane ${created.queue}`;
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
