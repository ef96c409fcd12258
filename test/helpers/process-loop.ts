// A loop whose workers are separate OS processes (`champion-loop worker ...`): the orchestrator,
// the package worker and one CPU lane per device, on a dev server of its own. Fault tests kill and
// restart them (and the server) while the loop runs.
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { exportLedger } from '../../src/client/ledger-export.js';
import { startLoop } from '../../src/client/loop-start.js';
import type { GenerationResult } from '../../src/workflows/generation.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stateQuery } from '../../src/workflows/messages.js';
import { laneQueue } from '../../src/workflows/queues.js';
import { waitForView } from './loop-checks.js';
import { loopConfigFor, writeLoopFolder, type HarnessOptions, type LoopDriver } from './loop-harness.js';
import { startTestServer, type TestServer } from './test-server.js';
import { drainCommand, startWorkerProcess, type LaneCard, type WorkerProcess } from './worker-processes.js';

export type { LoopDriver };

export interface ProcessLoopOptions extends HarnessOptions {
  /** Variables of the lane worker processes, so of every training and evaluation subprocess (fixture faults). */
  readonly laneEnv?: Readonly<Record<string, string>>;
  /** Variables of the orchestrator process (CHAMPION_LOOP_METRICS_PORT for its metrics). */
  readonly orchestratorEnv?: Readonly<Record<string, string>>;
  /** The server the loop runs on (default: a dev server of its own); the loop disposes of it. */
  readonly server?: () => Promise<TestServer>;
  /**
   * Each lane and the package worker on a host of its own: `loops/` (every loop's state dir and
   * runs root) is a private tmpfs in each (worker-processes.ts), the orchestrator's is this
   * process's. Only the data and the stack are shared, as on hosts that sync them.
   */
  readonly privateHosts?: boolean;
  /** Every lane a GPU lane of this card (its memory guard reads the nvidia-smi on the lanes' PATH); default CPU lanes. */
  readonly laneCard?: LaneCard;
  /** The loop's folder (made if missing; removed by `dispose`), for a run at the same paths as one before; default a fresh temporary one. */
  readonly dir?: string;
}

export interface ProcessLoop extends LoopDriver {
  /** The current server (a restart gives a new object on the same address and database). */
  readonly server: TestServer;
  readonly dir: string;
  readonly orchestrator: WorkerProcess;
  readonly packager: WorkerProcess;
  /** One worker process per lane, by device. */
  readonly lanes: WorkerProcess[];
  /** The task queue of lane `device`. */
  laneQueue(device: number): string;
  /** The lane worker serving a task queue. */
  laneOf(queue: string): { device: number; worker: WorkerProcess };
  /** Drain lane `device` with `champion-loop worker gpu --drain`, as an operator on its host would; resolves once the command ends. */
  drainLane(device: number): ReturnType<typeof drainCommand>;
  /** Start a worker again after it died or was stopped (same kind, flags and variables). */
  restart(which: 'orchestrator' | 'packager' | number): Promise<WorkerProcess>;
  /** Kill the dev server with SIGKILL. */
  killServer(): Promise<void>;
  /** Start the dev server again on the same ports and database file (with more dynamic config if given). */
  restartServer(options?: { dynamicConfig?: Record<string, unknown> }): Promise<TestServer>;
  dispose(): Promise<void>;
}

const HOST = 'test';

export async function createProcessLoop(options: ProcessLoopOptions): Promise<ProcessLoop> {
  let server = options.server
    ? await options.server()
    : await startTestServer(options.dynamicConfig ? { dynamicConfig: options.dynamicConfig } : {});
  const dir = options.dir ?? (await mkdtemp(path.join(tmpdir(), 'champion-loop-faults-')));
  await mkdir(dir, { recursive: true });
  const { config } = await writeLoopFolder(dir, options);
  const laneCount = options.lanes ?? 2;
  const at = { address: server.address, namespace: server.namespace };
  // The lanes' pid files (for `worker gpu --drain`) in this loop's own folder: other tests' lanes share the host name.
  const laneEnv = { XDG_RUNTIME_DIR: path.join(dir, 'run'), ...options.laneEnv };
  const loops = path.join(dir, 'loops');
  await mkdir(loops, { recursive: true });
  const host = options.privateHosts ? { privateDir: loops } : {};
  // Started together: the orchestrator bundles its workflows meanwhile (several seconds).
  const [orchestrator, packager, ...lanes] = await Promise.all([
    startWorkerProcess({ kind: 'orchestrator' }, { ...at, env: options.orchestratorEnv ?? {} }),
    startWorkerProcess({ kind: 'package' }, { ...at, ...host }),
    ...Array.from({ length: laneCount }, (_, device) =>
      startWorkerProcess(
        { kind: 'gpu', host: HOST, device, ...(options.laneCard ? { card: options.laneCard } : {}) },
        { ...at, env: laneEnv, ...host },
      ),
    ),
  ]);
  const workers = { orchestrator, packager, lanes };
  const connection = await Connection.connect({ address: server.address });
  const client = new Client({ connection, namespace: server.namespace });

  const handle = (loopId: string) => client.workflow.getHandle(loopWorkflowId(loopId));
  const configFor = loopConfigFor(config, dir);
  const queueOf = (device: number) => laneQueue(HOST, device);
  return {
    get server() {
      return server;
    },
    client,
    dir,
    config,
    get orchestrator() {
      return workers.orchestrator;
    },
    get packager() {
      return workers.packager;
    },
    get lanes() {
      return workers.lanes;
    },
    laneQueue: queueOf,
    laneOf(queue) {
      const device = workers.lanes.findIndex((_, index) => queueOf(index) === queue);
      if (device < 0) throw new Error(`no lane serves ${queue}`);
      return { device, worker: workers.lanes[device] as WorkerProcess };
    },
    drainLane: (device) => drainCommand({ kind: 'gpu', host: HOST, device }, { env: laneEnv }),
    async restart(which) {
      if (which === 'orchestrator') return (workers.orchestrator = await workers.orchestrator.restart());
      if (which === 'packager') return (workers.packager = await workers.packager.restart());
      const lane = workers.lanes[which];
      if (!lane) throw new Error(`no lane ${which}`);
      return (workers.lanes[which] = await lane.restart());
    },
    async killServer() {
      await server.kill();
    },
    async restartServer(more) {
      server = await server.restart(more);
      return server;
    },
    configFor,
    startWith: (loopId, settings) => startLoop(client, loopId, configFor(loopId, settings)),
    view: (loopId) => handle(loopId).query(stateQuery),
    waitFor: (loopId, done, timeoutMs) => waitForView(loopId, () => handle(loopId).query(stateQuery), done, timeoutMs),
    result: (loopId) => handle(loopId).result() as Promise<GenerationResult>,
    ledger: (loopId) => exportLedger(client, loopId),
    async dispose() {
      const all = [workers.orchestrator, workers.packager, ...workers.lanes];
      for (const worker of all) worker.signal('SIGKILL');
      await Promise.all(all.map((worker) => worker.exited));
      await connection.close();
      await server.kill();
      await server.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
