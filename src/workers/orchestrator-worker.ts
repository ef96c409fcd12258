import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { clientTracing, workerTracing } from '../tracing/tracing.js';
import { Client } from '@temporalio/client';
import type { DataConverter, WorkerDeploymentVersion } from '@temporalio/common';
import { loopDataConverter } from '../codec/data-converter.js';
import type { NativeConnection } from '@temporalio/worker';
import { Worker, type WorkflowBundleOption } from '@temporalio/worker';
import { StopFiles } from './stop-file.js';
import { orchestratorWorkerActivities } from './orchestrator-activities.js';
import { LedgerMirror } from '../artifacts/ledger-mirror.js';
import { keepLedgerCopies } from '../ledger-copy/ledger-keeper.js';
import { createLoopMetrics } from '../metrics/loop-metrics.js';
import { Notifier } from '../notify/notifier.js';
import { ORCHESTRATOR_QUEUE } from '../workflows/queues.js';
import { servedMetricMeter } from './metrics.js';
import { bundleInChildProcess } from './workflow-bundle.js';
import { deploymentVersion, orchestratorDeployment, versioningWanted } from './deployment.js';
import { becomeCurrent } from './current-version.js';
import { pollerOptions, type PollerMode } from './pollers.js';

/** The workflows every orchestrator worker runs (bundled from this file). */
export const WORKFLOWS_PATH = fileURLToPath(new URL('../workflows/index.ts', import.meta.url));

export interface OrchestratorWorkerOptions {
  readonly connection: NativeConnection;
  readonly namespace: string;
  /** A prebuilt bundle (tests share one); otherwise src/workflows is bundled in a process of its own. */
  readonly workflowBundle?: WorkflowBundleOption;
  readonly taskQueue?: string;
  /** Payload encryption; the environment's (loopDataConverter) when not given. */
  readonly dataConverter?: DataConverter;
  /** The build id it polls as (tests run two builds of one code); CHAMPION_LOOP_BUILD_ID or the bundle's hash otherwise. */
  readonly buildId?: string;
  /** Worker Versioning (deployment.ts); CHAMPION_LOOP_WORKER_VERSIONING otherwise. */
  readonly versioned?: boolean;
  /** How it polls its queue (pollers.ts; default: CHAMPION_LOOP_POLLERS, else autoscaling). */
  readonly pollers?: PollerMode;
}

/**
 * The orchestrator: runs every workflow (generations, training runs, reserve checks, packaging)
 * and the CPU activities (candidates, split, configs, handing champions to packaging), and keeps
 * the ledger copy in each running loop's state dir.
 */
export async function createOrchestratorWorker(options: OrchestratorWorkerOptions): Promise<Worker> {
  const dataConverter = options.dataConverter ?? loopDataConverter();
  // Its activities start and signal workflows (packaging): with tracing on, in the trace they run in.
  const client = new Client({
    connection: options.connection,
    namespace: options.namespace,
    dataConverter,
    ...clientTracing(),
  });
  const workflowBundle = options.workflowBundle ?? (await bundleInChildProcess(WORKFLOWS_PATH));
  // Unversioned (as before versioning) unless asked for; versioned, its build id names its workflow code.
  const deployment =
    (options.versioned ?? versioningWanted())
      ? orchestratorDeployment(
          deploymentVersion(
            'code' in workflowBundle ? workflowBundle.code : await readFile(workflowBundle.codePath, 'utf8'),
            options.buildId,
          ),
        )
      : null;
  const worker = await Worker.create({
    connection: options.connection,
    namespace: options.namespace,
    dataConverter,
    taskQueue: options.taskQueue ?? ORCHESTRATOR_QUEUE,
    workflowBundle,
    ...(deployment ? { workerDeploymentOptions: deployment } : {}),
    ...workerTracing(),
    ...pollerOptions(options.pollers),
    activities: orchestratorWorkerActivities(client),
  });
  // The loop's own metrics beside the SDK's, when this process serves metrics (--metrics-port).
  const meter = servedMetricMeter();
  const loopMetrics = meter && createLoopMetrics(client, meter, (message) => console.warn(`[metrics] ${message}`));
  // Webhooks of loop.yaml `notify:`, told what the ledger copy's new rows say (off the copy's path).
  const notifier = new Notifier({ log: (message) => console.warn(`[notify] ${message}`) });
  // A loop whose state dir holds a STOP file (the seed's way to stop) is asked to stop.
  const stopFiles = new StopFiles(client, (message) => console.warn(`[stop file] ${message}`));
  // With loop.yaml `artifacts:`, each loop's ledger copy mirrored to the store (a fresh host's `start` fetches it).
  const mirror = new LedgerMirror((message) => console.warn(`[artifacts] ${message}`));
  // Every loop's ledger.jsonl and state.json in its state dir, kept current from history.
  const copies = keepLedgerCopies({
    client,
    worker,
    log: (message) => console.warn(`[ledger copy] ${message}`),
    onSynced: async (synced) => {
      notifier.onSynced(synced);
      await stopFiles.onSynced(synced);
      await loopMetrics?.onSynced(synced);
      await mirror.onSynced(synced);
    },
  });
  ledgerCopies.set(worker, {
    async flush() {
      await copies.flush();
      // The last rows' notifications get a moment; what is left goes out after the next start.
      await notifier.finish(NOTIFY_GRACE_MS);
      await mirror.finish(MIRROR_GRACE_MS);
    },
  });
  return worker;
}

/** How long a stopping orchestrator worker waits for notifications still on their way. */
const NOTIFY_GRACE_MS = 5_000;

/** How long a stopping orchestrator worker waits for the last ledger copies to reach the artifact store. */
const MIRROR_GRACE_MS = 10_000;

const ledgerCopies = new WeakMap<Worker, { flush(): Promise<void> }>();

/** After an orchestrator worker stopped (its connection still open): bring every ledger copy up to date once more. */
export async function flushLedgerCopies(worker: Worker): Promise<void> {
  await ledgerCopies.get(worker)?.flush();
}

/**
 * Run an orchestrator worker. A versioned one (deployment.ts) has its build made the deployment's
 * current version once it polls (current-version.ts), and `onCurrent` hears the build it
 * replaced; a build that cannot be made current stops the worker with why.
 */
export async function runOrchestrator(
  worker: Worker,
  connection: NativeConnection,
  namespace: string,
  onCurrent: (was: string | null, version: WorkerDeploymentVersion) => void = () => undefined,
  {
    makeCurrent = false,
    onLeft = () => undefined,
  }: {
    /** Take the current version even from a newer build (`worker orchestrator --make-current`: a rollback on purpose). */
    readonly makeCurrent?: boolean;
    /** An older build left the current one as it is: why, and what it does meanwhile. */
    readonly onLeft?: (line: string) => void;
  } = {},
): Promise<void> {
  const running = worker.run();
  const deployment = worker.options.workerDeploymentOptions;
  if (deployment?.useWorkerVersioning !== true) return running;
  try {
    const outcome = await becomeCurrent(
      { workflowService: connection.workflowService, namespace },
      deployment.version,
      { makeCurrent },
    );
    if (outcome.current) onCurrent(outcome.was, deployment.version);
    else onLeft(leftLine(deployment.version, outcome.holder, outcome.why));
  } catch (error) {
    worker.shutdown();
    await running.catch(() => undefined);
    throw error;
  }
  await running;
}

/** What an older build that left the current version alone says: why it waits, and how to roll back on purpose. */
function leftLine(version: WorkerDeploymentVersion, holder: string, why: string): string {
  return (
    `build ${version.buildId} does not take the current version of worker deployment ${version.deploymentName} ` +
    `back from ${holder}: ${why}. It serves the runs started on ${version.buildId} until they are done ` +
    `(new workflows and generations run on ${holder}). To roll back to ${version.buildId} on purpose, ` +
    `restart it with: champion-loop worker orchestrator --make-current`
  );
}
