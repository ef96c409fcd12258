import { Client } from '@temporalio/client';
import { ApplicationFailure } from '@temporalio/common';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import { startTracing, stopTracing } from '../tracing/tracing.js';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { warnOnShortRetention } from './retention.js';
import { connectionSettings, describeConnection } from '../workers/connection.js';
import { hostname } from 'node:os';
import { DURATION_EXPECTED, isDuration } from '../config/duration.js';
import { loadLoopConfig } from '../config/load-loop-config.js';
import { readGpuMemory } from '../workers/gpu-memory.js';
import { admissionLine, laneCapacity, type LaneCapacity } from '../workers/lane-capacity.js';
import { createLaneWorker, type LaneWorker } from '../workers/lane-worker.js';
import { tellLoops } from '../workers/lane-notices.js';
import {
  type LaneEnd,
  lanePidFile,
  readLaneEnd,
  removeLanePid,
  runningLanePid,
  writeLaneEnd,
  writeLanePid,
} from '../workers/lane-pid-file.js';
import { laneQueue } from '../config/lanes.js';
import { installWorkerRuntime, metricsPort } from '../workers/metrics.js';
import { createOrchestratorWorker, flushLedgerCopies, runOrchestrator } from '../workers/orchestrator-worker.js';
import { pollerMode, POLLERS_ENV, type PollerMode } from '../workers/pollers.js';
import { createPackageWorker } from '../workers/package-worker.js';
import { prebuiltWorkflowBundle } from '../workers/workflow-bundle.js';
import type { ConnectionFlags } from './connect.js';
import { stepCgroups } from '../activities/support/step-cgroup.mjs';
import { requireSearchAttributes } from './namespace-check.js';
import { loopDataConverter } from '../codec/data-converter.js';
import { requireHistoryKeys } from '../codec/history-keys.js';
import { LANE_STOPPED } from '../contract/lane-job.js';

/** The `worker` command's options beyond the connection. */
export interface WorkerCommandOptions extends ConnectionFlags {
  readonly device?: string;
  readonly host?: string;
  readonly slots?: string;
  readonly minFreeGib?: string;
  readonly killGrace?: string;
  readonly overtaking?: string;
  readonly config?: string;
  readonly minFreePids: string;
  readonly cpu?: boolean;
  readonly drain?: boolean;
  /** orchestrator, versioned: take the current version even from a newer build. */
  readonly makeCurrent?: boolean;
  readonly metricsPort?: string;
  /** orchestrator: a bundle built ahead of time (`champion-loop bundle`). */
  readonly workflowBundle?: string;
  /** orchestrator and gpu: autoscaling or fixed pollers (workers/pollers.ts). */
  readonly pollers?: string;
}

/** The poller mode of `--pollers`, else of CHAMPION_LOOP_POLLERS (absent: autoscaling). */
const pollersOf = (options: WorkerCommandOptions): PollerMode =>
  options.pollers === undefined ? pollerMode(process.env[POLLERS_ENV]) : pollerMode(options.pollers, '--pollers');

/** A flag's number, or undefined when the flag was not given. */
function optionalNumber(text: string | undefined, flag: string, min: number): number | undefined {
  return text === undefined ? undefined : number(text, flag, min);
}

function optionalDuration(text: string | undefined, flag: string): string | undefined {
  if (text !== undefined && !isDuration(text)) throw new Error(`${flag} must be ${DURATION_EXPECTED} (got ${text})`);
  return text;
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
      killGrace: optionalDuration(options.killGrace, '--kill-grace'),
      overtaking: optionalNumber(options.overtaking, '--overtaking', 0),
    },
    options.config ? { config: await loadLoopConfig(options.config), file: options.config, host, device } : null,
  );
  return { device, host, capacity, cpu: options.cpu === true };
}

/**
 * A lane's signals: SIGTERM, SIGINT and SIGQUIT stop it at once (each running step's group gets
 * SIGTERM, then SIGKILL after the kill grace; the jobs are retried); SIGUSR2 drains it (no new
 * job, the running ones finish, then it exits). The SDK's own handlers shut the worker down on
 * each of them too, which for a lane waits for its jobs.
 */
function stopLaneOnSignals(lane: LaneWorker): { readonly stoppedBy: () => Extract<LaneEnd, { how: 'signal' }> | null } {
  // The first signal that stopped it, and how many jobs were running then (they are cancelled).
  let stoppedBy: { signal: string; running: number } | null = null;
  for (const signal of ['SIGTERM', 'SIGINT', 'SIGQUIT'] as const) {
    process.on(signal, () => {
      stoppedBy ??= { signal, running: lane.worker.getStatus().numInFlightActivities };
      console.log(
        `[lane] ${signal}: stopping ${lane.queue} now; running steps get SIGTERM, then SIGKILL after the kill grace`,
      );
      lane.stopNow(signal);
    });
  }
  process.on('SIGUSR2', () => {
    const running = lane.drain();
    console.log(
      `[lane] SIGUSR2: draining ${lane.queue}: it takes no new job; ${running} running job${running === 1 ? '' : 's'} finish${running === 1 ? 'es' : ''}, then the worker exits (SIGTERM stops ${running === 1 ? 'it' : 'them'} now)`,
    );
  });
  return { stoppedBy: () => (stoppedBy === null ? null : { pid: process.pid, how: 'signal', ...stoppedBy }) };
}

/**
 * A lane without codec keys handed a job of an encrypted loop (issue 48: it took and failed every
 * such job, each charged to its run). The job is the lane's fault: it fails as a lane stopped under
 * it (`LaneStoppedError`, which the loop sends again apart from the run's attempts), and the lane
 * stops taking jobs, saying which key it lacks, and exits 1; the job then runs on another lane.
 */
function keylessLane(lane: LaneWorker, ended: (why: string) => void): (message: string) => Error {
  let said = false;
  return (message) => {
    if (!said) {
      said = true;
      console.error(
        `[lane] ${lane.queue} cannot open a job: ${message}. This lane stops taking jobs (its jobs run again ` +
          'on other lanes, not charged to their runs); start it again with the keys',
      );
      process.exitCode = 1;
      // A drain waiting on it hears that it stopped for this, not that it drained.
      ended(`it has no codec key: ${message}`);
      lane.stopNow('no codec key');
    }
    // The type the loop counts as a lane lost under a step (lane-attempts.ts), not a failed attempt.
    return ApplicationFailure.create({
      type: LANE_STOPPED,
      message: `lane ${lane.queue} has no codec key: ${message}`,
    });
  };
}

/** What the drain says once the worker `pid` has gone, from the end it recorded; an error when it did not drain. */
function drainOutcome(queue: string, pid: number, end: LaneEnd | null, seconds: number): string {
  if (end?.how === 'drained') return `${queue} drained: its worker exited after ${seconds} s`;
  const notDrained = `${queue} did not drain: its worker (pid ${pid})`;
  if (end === null)
    throw new Error(
      `${notDrained} ended without saying how, ${seconds} s into the drain (killed with SIGKILL, or it crashed): ` +
        'jobs it was running were lost and run again (on another lane, or on this one once its worker is back); see its log',
    );
  if (end.how === 'failed')
    throw new Error(`${notDrained} failed ${seconds} s into the drain: ${end.error}; its running jobs run again`);
  const jobs =
    end.running === 0
      ? 'no job was running then'
      : `${end.running === 1 ? '1 running job was' : `${end.running} running jobs were`} stopped and run${end.running === 1 ? 's' : ''} ` +
        'again (on another lane, or on this one once its worker is back), not finished here';
  throw new Error(`${notDrained} was stopped by ${end.signal} ${seconds} s into the drain: ${jobs}`);
}

/**
 * `worker gpu --drain`: the lane worker of this host and device on this machine drains (SIGUSR2);
 * waits until it has exited, saying what it waits for.
 */
async function drainLane(options: WorkerCommandOptions): Promise<void> {
  const queue = laneQueue(options.host ?? hostname(), number(options.device, '--device', 0));
  const file = lanePidFile(queue);
  const pid = await runningLanePid(file);
  if (pid === null)
    throw new Error(
      `no lane worker for ${queue} runs on this machine (no live pid in ${file}): drain it on the host it runs on, with the --host and --device it was started with`,
    );
  process.kill(pid, 'SIGUSR2');
  console.log(`draining ${queue} (worker pid ${pid}): it takes no new job; waiting for its running jobs to finish`);
  const sinceMs = Date.now();
  let said = sinceMs;
  while ((await runningLanePid(file)) === pid) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (Date.now() - said >= 60_000) {
      said = Date.now();
      console.log(`still draining ${queue}: ${Math.round((said - sinceMs) / 60_000)} min`);
    }
  }
  console.log(drainOutcome(queue, pid, await readLaneEnd(file, pid), Math.round((Date.now() - sinceMs) / 1000)));
}

/** Run one worker until SIGINT/SIGTERM; on either, running subprocesses are killed and the worker drains. */
export async function runWorker(kind: string, options: WorkerCommandOptions): Promise<void> {
  if (!['orchestrator', 'gpu', 'package'].includes(kind))
    throw new Error(`unknown worker kind '${kind}': use orchestrator, gpu or package`);
  if (options.makeCurrent === true && kind !== 'orchestrator')
    throw new Error(`--make-current is for the orchestrator (with Worker Versioning), not the ${kind} worker`);
  if (options.workflowBundle !== undefined && kind !== 'orchestrator')
    throw new Error(`--workflow-bundle is for the orchestrator, not the ${kind} worker`);
  // A bundle that is none is refused before anything connects.
  const prebuilt =
    options.workflowBundle === undefined ? undefined : await prebuiltWorkflowBundle(options.workflowBundle);
  if (options.drain === true) {
    if (kind !== 'gpu')
      throw new Error(`--drain is for a GPU lane (worker gpu --drain --device N), not the ${kind} worker`);
    return drainLane(options);
  }
  // A lane's capacity is settled before anything connects: flags that disagree with loop.yaml are refused at once.
  const lane = kind === 'gpu' ? await laneSettings(options) : null;
  const pollers = pollersOf(options);
  const settings = connectionSettings(options);
  // The runtime (worker heartbeats, the metrics endpoint) must exist before the first connection.
  const metrics = installWorkerRuntime(metricsPort(options.metricsPort));
  // Keys that cannot be used stop the worker here, before it connects (CodecKeyError says why).
  // A lane without keys that is handed an encrypted loop's job stops taking jobs (keylessLane).
  const run: WorkerRun = { failure: null };
  const dataConverter = loopDataConverter(process.env, (message) => run.keyless?.(message) ?? new Error(message));
  // With OTEL_EXPORTER_OTLP_ENDPOINT set, its activities and their steps send spans (tracing.ts).
  startTracing(kind === 'gpu' ? 'lane' : kind);
  const connection = await NativeConnection.connect(settings.connectionOptions);
  const common = { connection, namespace: settings.namespace, dataConverter };
  await checkNamespace(common);
  let worker: Worker;
  let what: string;
  let started: StartedLane | null = null;
  switch (kind) {
    case 'orchestrator':
      worker = await createOrchestratorWorker({
        ...common,
        pollers,
        ...(prebuilt ? { workflowBundle: prebuilt } : {}),
      });
      what = `orchestrator (workflows${prebuilt ? ` of the bundle ${options.workflowBundle}` : ''}, CPU activities)`;
      break;
    case 'gpu':
      started = await startLane(common, lane as LaneSettings, options, run);
      ({ worker, what } = started);
      break;
    default:
      worker = await createPackageWorker(common);
      what = 'package worker';
  }
  console.log(
    `${what} connected to ${describeConnection(settings)}${metrics ? `; metrics at http://${metrics}/metrics` : ''}`,
  );
  if (kind === 'orchestrator') {
    const client = new Client({ connection, namespace: settings.namespace, dataConverter });
    await warnOnShortRetention(client, (line) => console.warn(line));
  }
  try {
    if (kind === 'orchestrator') await serveOrchestrator(worker, connection, settings.namespace, options);
    else await worker.run();
  } catch (error) {
    run.failure = (error as Error).message;
    throw error;
  } finally {
    if (started !== null) await recordLaneEnd(started, run.failure);
  }
  // The loop's last rows reach the ledger copy before the connection goes.
  if (kind === 'orchestrator') await flushLedgerCopies(worker);
  await connection.close();
  await stopTracing();
}

/** What a worker learns as it runs: how its lane refuses a job it has no keys for, and why it failed. */
interface WorkerRun {
  keyless?: (message: string) => Error;
  failure: string | null;
}

/** A worker's connection, namespace and payload codec: what every kind of worker is created with. */
interface WorkerCommon {
  readonly connection: NativeConnection;
  readonly namespace: string;
  readonly dataConverter: ReturnType<typeof loopDataConverter>;
}

/**
 * Refuses a namespace without the loop's search attributes, and keys that cannot open the running
 * loops' history, before the worker polls (rather than failing every task); the connection is
 * closed then.
 */
async function checkNamespace({ connection, namespace, dataConverter }: WorkerCommon): Promise<void> {
  try {
    const client = new Client({ connection, namespace, dataConverter });
    await requireSearchAttributes(client);
    await requireHistoryKeys(client);
  } catch (error) {
    await connection.close();
    throw error;
  }
}

/** A lane worker as `worker gpu` started it: its worker, what it is called, its pid file and its signals. */
interface StartedLane {
  readonly worker: Worker;
  readonly what: string;
  readonly pidFile: string;
  readonly signals: ReturnType<typeof stopLaneOnSignals>;
}

/**
 * Creates this host's lane worker for its device, stopped by SIGTERM/SIGINT/SIGQUIT and failed by
 * a job it has no keys for (`run`), with its pid file written for `worker gpu --drain`; says how it
 * admits jobs and how a job's processes are held together.
 */
async function startLane(
  common: WorkerCommon,
  { device, host, capacity, cpu }: LaneSettings,
  options: WorkerCommandOptions,
  run: WorkerRun,
): Promise<StartedLane> {
  const client = new Client(common);
  const created = await createLaneWorker({
    ...common,
    device,
    host,
    slots: capacity.slots,
    minFreeGiB: capacity.minFreeGiB,
    minFreePids: number(options.minFreePids, '--min-free-pids', 0),
    killGraceMs: capacity.killGraceMs,
    overtaking: capacity.overtaking,
    cpu,
    pollers: pollersOf(options),
    log: (message) => console.log(`[lane] ${message}`),
    tellLoops: tellLoops(client, (message) => console.warn(`[lane] ${message}`)),
  });
  const signals = stopLaneOnSignals(created);
  run.keyless = keylessLane(created, (why) => (run.failure ??= why));
  // `worker gpu --drain` on this machine finds it here.
  const pidFile = lanePidFile(created.queue);
  await writeLanePid(pidFile);
  // How it admits jobs, from a first reading of its device: a lane without a memory guard says so.
  console.log(admissionLine(created.queue, capacity, cpu ? null : await readGpuMemory(device)));
  // How a job's processes are held together: a cgroup per step, or its process group and mark.
  console.log(`[lane] ${stepCgroups().why}`);
  return { worker: created.worker, what: `${cpu ? 'CPU' : 'GPU'} lane ${created.queue}`, pidFile, signals };
}

/**
 * Records how the lane ended, for a `worker gpu --drain` waiting on it: drained, stopped by a
 * signal, or failed (`failure`); then removes its pid file.
 */
async function recordLaneEnd(lane: StartedLane, failure: string | null): Promise<void> {
  await writeLaneEnd(
    lane.pidFile,
    failure !== null
      ? { pid: process.pid, how: 'failed', error: failure }
      : (lane.signals.stoppedBy() ?? { pid: process.pid, how: 'drained' }),
  );
  await removeLanePid(lane.pidFile);
}

/** Runs the orchestrator: new workflows, and generations continuing as new, run on this build from now on. */
async function serveOrchestrator(
  worker: Worker,
  connection: NativeConnection,
  namespace: string,
  options: WorkerCommandOptions,
): Promise<void> {
  await runOrchestrator(
    worker,
    connection,
    namespace,
    (was, version) => {
      if (was !== version.buildId) console.log(currentVersionLine(was, version));
    },
    { makeCurrent: options.makeCurrent === true, onLeft: (line) => console.warn(line) },
  );
}

/** What an orchestrator says once its build is current: and, when it replaced one, how to retire it. */
function currentVersionLine(was: string | null, version: WorkerDeploymentVersion): string {
  const line = `build ${version.buildId} is the current version of worker deployment ${version.deploymentName}`;
  if (was === null) return line;
  return (
    `${line} (was ${was}): generations move to it at their next continue-as-new; runs started on ${was} ` +
    `finish there, so keep its orchestrator running until 'temporal worker deployment describe-version ` +
    `--deployment-name ${version.deploymentName} --build-id ${was}' says it is drained`
  );
}
