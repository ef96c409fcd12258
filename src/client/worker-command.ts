import { NativeConnection, type Worker } from '@temporalio/worker';
import { connectionSettings, describeConnection } from '../workers/connection.js';
import { createLaneWorker } from '../workers/lane-worker.js';
import { createOrchestratorWorker } from '../workers/orchestrator-worker.js';
import { createPackageWorker } from '../workers/package-worker.js';
import type { ConnectionFlags } from './connect.js';

function number(text: string | undefined, flag: string, min: number): number {
  const value = Number(text);
  if (text === undefined || !Number.isFinite(value) || value < min) throw new Error(`${flag} must be a number >= ${min} (got ${text ?? 'nothing'})`);
  return value;
}

/** Run one worker until SIGINT/SIGTERM; on either, running subprocesses are killed and the worker drains. */
export async function runWorker(
  kind: string,
  options: ConnectionFlags & { device?: string; host?: string; slots: string; minFreeGib: string; cpu?: boolean },
): Promise<void> {
  const settings = connectionSettings(options);
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
        cpu: options.cpu === true,
        log: (message) => console.log(`[lane] ${message}`),
      });
      worker = lane.worker;
      what = `${options.cpu ? 'CPU' : 'GPU'} lane ${lane.queue}`;
      break;
    }
    case 'package':
      worker = await createPackageWorker(common);
      what = 'package worker';
      break;
    default:
      throw new Error(`unknown worker kind '${kind}': use orchestrator, gpu or package`);
  }
  console.log(`${what} connected to ${describeConnection(settings)}`);
  await worker.run();
  await connection.close();
}
