import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Client, Connection } from '@temporalio/client';
import type { DataConverter } from '@temporalio/common';
import { NativeConnection, type Worker } from '@temporalio/worker';
import { stringify } from 'yaml';
import { exportLedger } from '../../src/client/ledger-export.js';
import { startLoop, type StartOutcome } from '../../src/client/loop-start.js';
import { durationMs, type DurationText } from '../../src/config/duration.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import type { GenerationResult } from '../../src/workflows/generation.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import type { LoopView } from '../../src/workflows/loop-view.js';
import { stateQuery } from '../../src/workflows/messages.js';
import type { GpuReading } from '../../src/workers/gpu-memory.js';
import { createLaneWorker, type LaneWorker } from '../../src/workers/lane-worker.js';
import { createOrchestratorWorker, runOrchestrator } from '../../src/workers/orchestrator-worker.js';
import { createPackageWorker } from '../../src/workers/package-worker.js';
import { waitForView } from './loop-checks.js';
import { startTestServer, type TestServer } from './test-server.js';
import { workflowBundle } from './workflow-bundle.js';
import { definedFields } from '../../src/support/defined-fields.js';

/** A lane entry's `kill_grace` in ms, undefined without one. */
const killGraceOf = (text: DurationText | undefined): number | undefined =>
  text === undefined ? undefined : durationMs(text);

const STACK = fileURLToPath(new URL('../fixture-stack/', import.meta.url));
const step = (script: string) => [process.execPath, path.join(STACK, script)];

/** The fixture stack's commands, as loop.yaml lists them. */
export const FIXTURE_COMMANDS = {
  train: step('train.mjs'),
  evaluate: step('evaluate.mjs'),
  evaluate_ensemble: step('evaluate-ensemble.mjs'),
  split_generate: step('split-generate.mjs'),
  split_carve: step('split-carve.mjs'),
  teacher_scores: step('teacher-scores.mjs'),
  package: step('package.mjs'),
};

export interface CandidateSpec {
  readonly name: string;
  readonly overrides?: Record<string, unknown>;
}

export interface HarnessOptions {
  readonly candidates: readonly CandidateSpec[];
  readonly lanes?: number;
  /** loop.yaml settings over the harness defaults. */
  readonly loop?: Record<string, unknown>;
  /** Base config keys over the harness defaults (fixture knobs). */
  readonly base?: Record<string, unknown>;
  readonly dynamicConfig?: Record<string, unknown>;
  readonly items?: number;
  /** The lanes' device as their memory guard reads it (default: no GPU), and how often it reads. */
  readonly gpu?: { readonly read: () => Promise<GpuReading>; readonly pollMs: number };
  /** The client's and every worker's data converter (a payload codec); the plain default otherwise. */
  readonly dataConverter?: DataConverter;
  /** The orchestrator polls as a version of the worker deployment (Worker Versioning); unversioned otherwise. */
  readonly versioned?: boolean;
}

/** A loop harness's options: on a dev server of its own, or on a server already running. */
export interface LoopHarnessOptions extends HarnessOptions {
  /**
   * A running server to connect to (its address and namespace) instead of a dev server of the
   * harness's own: a self-hosted cluster (scripts/cluster/cluster.ts's ClusterServer), whose
   * namespace has the loop's search attributes. It stays running at `dispose` (its starter's to
   * stop); `dynamicConfig` is the starter's to set then, and refused here.
   */
  readonly server?: TestServer;
}

/** A real dev server, real workers in this process, and a loop folder with the fixture stack. */
/** What the bounded-loop runner and the ledger checks need of a loop harness, in-process or not. */
export interface LoopDriver {
  readonly client: Client;
  readonly config: LoopConfig;
  /**
   * The loop.yaml of one loop of its own in this harness: its own state dir and runs root (so
   * several loops share the server and workers without sharing run ids), settings over the harness's.
   */
  configFor(loopId: string, settings?: Partial<LoopConfig>): LoopConfig;
  /** Start a loop with configFor's config, as `champion-loop start` does. */
  startWith(loopId: string, settings?: Partial<LoopConfig>): Promise<StartOutcome>;
  view(loopId: string): Promise<LoopView>;
  waitFor(loopId: string, done: (view: LoopView) => boolean, timeoutMs?: number): Promise<LoopView>;
  result(loopId: string): Promise<GenerationResult>;
  ledger(loopId: string): ReturnType<typeof exportLedger>;
}

export interface LoopHarness extends LoopDriver {
  readonly server: TestServer;
  readonly dir: string;
  readonly configFile: string;
  readonly lanes: string[];
  start(loopId: string): Promise<void>;
  /** Write the candidates file (the harness's own, or `file`), as specs or as raw text. */
  writeCandidates(candidates: readonly CandidateSpec[] | string, file?: string): Promise<void>;
  dispose(): Promise<void>;
}

/** The loop folder every harness uses: data set, base config, candidates file and loop.yaml over the fixture stack. */
export interface LoopFolder {
  readonly configFile: string;
  readonly config: LoopConfig;
  writeCandidates(candidates: readonly CandidateSpec[] | string, file?: string): Promise<void>;
}

/** Write a loop folder into `dir` (which exists): `lanes` lanes named `test`/0.., loop.yaml settings over the defaults. */
export async function writeLoopFolder(
  dir: string,
  options: Omit<HarnessOptions, 'dynamicConfig'>,
): Promise<LoopFolder> {
  await mkdir(path.join(dir, 'configs'), { recursive: true });
  await mkdir(path.join(dir, 'data'), { recursive: true });
  await writeFile(path.join(dir, 'data', 'dataset.json'), JSON.stringify({ items: options.items ?? 400 }));
  await writeFile(
    path.join(dir, 'configs', 'base.yaml'),
    stringify({ fixture_epochs: 3, fixture_quality: 0.5, ...options.base }),
  );
  const laneCount = options.lanes ?? 2;
  const writeCandidates = async (
    candidates: readonly CandidateSpec[] | string,
    file = path.join(dir, 'candidates.yaml'),
  ) => {
    const text =
      typeof candidates === 'string'
        ? candidates
        : stringify({
            candidates: candidates.map((c) => ({
              name: c.name,
              base_config: 'configs/base.yaml',
              overrides: c.overrides ?? {},
            })),
          });
    await writeFile(file, text);
  };
  await writeCandidates(options.candidates);
  const configFile = path.join(dir, 'loop.yaml');
  await writeFile(
    configFile,
    stringify({
      data_root: 'data',
      candidates: 'candidates.yaml',
      parallel: laneCount,
      saturation_evals: 200,
      lanes: Array.from({ length: laneCount }, (_, device) => ({ host: 'test', device })),
      commands: FIXTURE_COMMANDS,
      timeouts: { schedule_to_start: '20s', heartbeat: '10s' },
      ...options.loop,
    }),
  );
  return { configFile, config: await loadLoopConfig(configFile), writeCandidates };
}

/**
 * configFor of a harness: the loop.yaml of one loop of its own, its own state dir and runs root
 * under `dir/loops/<loopId>`, settings over the harness's.
 */
export function loopConfigFor(
  config: LoopConfig,
  dir: string,
): (loopId: string, settings?: Partial<LoopConfig>) => LoopConfig {
  return (loopId, settings = {}) => ({
    ...config,
    state_dir: path.join(dir, 'loops', loopId, 'state'),
    runs_root: path.join(dir, 'loops', loopId, 'runs'),
    ...settings,
  });
}

export async function createLoopHarness(options: LoopHarnessOptions): Promise<LoopHarness> {
  if (options.server && options.dynamicConfig)
    throw new Error("a harness on a running server takes that server's dynamic config: set it where the server starts");
  const own = !options.server;
  const server =
    options.server ?? (await startTestServer(options.dynamicConfig ? { dynamicConfig: options.dynamicConfig } : {}));
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-work-'));
  const folder = await writeLoopFolder(dir, options);
  const { configFile, config } = folder;
  const writeCandidates = (candidates: readonly CandidateSpec[] | string, file?: string) =>
    folder.writeCandidates(candidates, file);
  const laneCount = options.lanes ?? 2;

  const connection = await Connection.connect({ address: server.address });
  const dataConverter = options.dataConverter ?? {};
  const client = new Client({ connection, namespace: server.namespace, dataConverter });
  const native = await NativeConnection.connect({ address: server.address });
  const common = { connection: native, namespace: server.namespace, dataConverter };
  const workers: Worker[] = [
    await createOrchestratorWorker({
      ...common,
      workflowBundle: await workflowBundle(),
      ...(options.versioned ? { versioned: true } : {}),
    }),
    await createPackageWorker(common),
  ];
  const lanes: string[] = [];
  const laneWorkers: LaneWorker[] = [];
  for (let device = 0; device < laneCount; device += 1) {
    const lane = await createLaneWorker({
      ...common,
      host: 'test',
      device,
      // The lane's capacity as its loop.yaml entry sets it (laneCapacity); the memory floor only counts with a GPU.
      slots: config.lanes[device]?.slots ?? 1,
      minFreeGiB: options.gpu ? (config.lanes[device]?.min_free_gib ?? 0) : 0,
      readGpu: options.gpu?.read ?? (() => Promise.resolve({ kind: 'no-gpu', reason: 'test' })),
      ...(options.gpu ? { gpuPollMs: options.gpu.pollMs } : {}),
      // The lane's kill grace as its loop.yaml entry sets it (laneCapacity), else the lane's default.
      ...definedFields({ killGraceMs: killGraceOf(config.lanes[device]?.kill_grace) }),
    });
    workers.push(lane.worker);
    laneWorkers.push(lane);
    lanes.push(lane.queue);
  }
  const [orchestrator, ...others] = workers as [Worker, ...Worker[]];
  const running = [runOrchestrator(orchestrator, native, server.namespace), ...others.map((worker) => worker.run())];

  const handle = (loopId: string) => client.workflow.getHandle(loopWorkflowId(loopId));
  const configFor = loopConfigFor(config, dir);
  return {
    server,
    client,
    dir,
    configFile,
    config,
    lanes,
    async start(loopId) {
      await startLoop(client, loopId, config);
    },
    configFor,
    startWith: (loopId, settings) => startLoop(client, loopId, configFor(loopId, settings)),
    view: (loopId) => handle(loopId).query(stateQuery),
    waitFor: (loopId, done, timeoutMs) => waitForView(loopId, () => handle(loopId).query(stateQuery), done, timeoutMs),
    result: (loopId) => handle(loopId).result() as Promise<GenerationResult>,
    ledger: (loopId) => exportLedger(client, loopId),
    writeCandidates,
    async dispose() {
      // A lane's shutdown waits for its jobs: stopped at once, they end now.
      for (const lane of laneWorkers) lane.stopNow('the test is over');
      for (const worker of workers) if (worker.getState() === 'RUNNING') worker.shutdown();
      await Promise.allSettled(running);
      await native.close();
      await connection.close();
      if (own) await server.dispose();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
