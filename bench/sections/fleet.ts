// Section 7: one generation feeding a fleet. Lanes in several worker processes (the scale-out
// set-up), one dev server, one orchestrator process; per size (16, 32, 64 lanes) a generation of
// sleep-based jobs on the bench stack (bench/lib/fleet-step.sh), then ever shorter jobs on the
// largest size until dispatch p99 passes 1 s. Dispatch is read from the step trace as the
// utilisation section reads it (a slot freed -> its next job's first step starts); the
// generation's workflow tasks from its history; CPU from /proc. See bench/README.md, "Fleet".
import { readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { parse, stringify } from 'yaml';
import { runHistories } from '../../src/ledger-copy/history-runs.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { calibrate } from '../lib/calibration.js';
import { processCpu, type BenchContext } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import {
  busyFraction,
  dispatchCeiling,
  lanesCarried,
  steadyWindow,
  workflowTaskStats,
  type WorkflowTaskStats,
} from '../lib/fleet-math.js';
import { createLoopFolder, type LaneSpec, type LoopFolder } from '../lib/loop-folder.js';
import { runRounds } from '../lib/run-loop.js';
import { startBenchServer } from '../lib/server.js';
import { dispatchGaps } from '../lib/slots.js';
import { summarize, type Summary } from '../lib/stats.js';
import { parseTrace, tracedJobs } from '../lib/trace.js';
import { childWorkers, laneChild, type RunningWorkers } from '../lib/workers.js';

const HOST = 'fleet';
const STEP = path.join(PROJECT_ROOT, 'bench', 'lib', 'fleet-step.sh');
const STACK = path.join(PROJECT_ROOT, 'bench', 'stack');
/** The ceiling search stops at the first step whose dispatch p99 passes this. */
const P99_LIMIT_MS = 1000;

/** Busy and total CPU jiffies of the whole box, from /proc/stat: how saturated the 2 cores were. */
async function boxCpu(): Promise<{ busy: number; total: number } | null> {
  const text = await readFile('/proc/stat', 'utf8').catch(() => '');
  const fields = /^cpu\s+(.*)$/m.exec(text)?.[1]?.trim().split(/\s+/).map(Number);
  if (!fields || fields.length < 5) return null;
  const total = fields.slice(0, 8).reduce((sum, value) => sum + value, 0);
  const idle = (fields[3] ?? 0) + (fields[4] ?? 0);
  return { busy: total - idle, total };
}

/** One measured generation: a size, or a step of the ceiling search. */
interface FleetRun {
  readonly name: string;
  readonly lanes: number;
  readonly jobMs: readonly [number, number];
  readonly rounds: number;
  readonly complete: boolean;
  readonly jobs: number;
  readonly dispatch: Summary;
  /** Dispatches (job starts) per second over the steady window. */
  readonly ratePerS: number;
  readonly busy: number;
  readonly windowS: number;
  readonly workflowTasks: WorkflowTaskStats;
  /** CPU ms per dispatch (all jobs of the run, first ones included) of the orchestrator process and of the dev server. */
  readonly orchestratorCpuMsPerDispatch: number;
  readonly serverCpuMsPerDispatch: number;
  /** Cores the orchestrator and the server used over the run (CPU seconds / wall seconds). */
  readonly orchestratorCores: number;
  readonly serverCores: number;
  /** Share of the whole box's CPU that was busy over the run (all processes, other sessions' too). */
  readonly boxBusy: number | null;
  readonly loadBefore: readonly number[];
  readonly loadAfter: readonly number[];
  readonly calibrationMs: number;
  readonly wallS: number;
}

const loads = (values: readonly number[]) => values.map((value) => value.toFixed(2)).join(' ');
const ms = (value: number) => (Number.isFinite(value) ? value.toFixed(0) : 'n/a');

/** A history shard's transfer-queue reader: reads a second at most (Temporal's default 20). */
/** How often the comparison run's server may read it (temporal-dev.yaml keeps Temporal's 20). */
const FAST_TRANSFER_READS = 1000;
const TRANSFER_READS_KEY = 'history.transferProcessorMaxPollRPS';

/** A dev server with the fleet's lane processes and an orchestrator on it, and how to measure one generation there. */
interface Fleet {
  measure(
    name: string,
    size: number,
    jobMs: readonly [number, number],
    rounds: number,
    budgetS: number,
  ): Promise<FleetRun>;
  historyWarnings(): Promise<string[]>;
  close(): Promise<void>;
}

async function openFleet(ctx: BenchContext, name: string, dynamicConfig: Record<string, unknown> = {}): Promise<Fleet> {
  const { options, log } = ctx;
  const processes = options.fleetProcesses;
  const largest = Math.max(...options.fleetSizes);
  const server = await startBenchServer(ctx.cli, name, dynamicConfig);
  let workers: RunningWorkers | undefined;
  let connection: Connection | undefined;
  const close = async () => {
    await workers?.stop();
    await connection?.close();
    await server.dispose(options.keep);
  };
  try {
    const traceFile = (device: number) => path.join(server.dir, `trace-lane-${device}.jsonl`);
    const devices = Array.from({ length: processes }, (_, device) => device);
    log(`fleet: starting ${processes} lane processes of ${largest / processes} slots and an orchestrator process`);
    // Each process offers the largest size's slots; a smaller generation's loop.yaml gives its lanes fewer.
    workers = await childWorkers({
      address: server.address,
      namespace: server.namespace,
      logDir: server.dir,
      workers: [
        { name: 'orchestrator', args: ['orchestrator'] },
        ...devices.map((device) =>
          laneChild({ host: HOST, device, slots: largest / processes }, { FIXTURE_TRACE: traceFile(device) }),
        ),
      ],
    });
    const orchestratorPid = workers.pids.get('orchestrator');
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace });

    const measure = async (
      name: string,
      size: number,
      jobMs: readonly [number, number],
      rounds: number,
      budgetS: number,
    ): Promise<FleetRun> => {
      const loadBefore = os.loadavg();
      const calibration = calibrate();
      const lanes: LaneSpec[] = devices.map((device) => ({ host: HOST, device, slots: size / processes }));
      const created = await createLoopFolder({
        dir: path.join(server.dir, `loop-${name}`),
        stack: 'bench',
        candidates: Array.from({ length: size }, (_, index) => ({
          name: `f${String(index + 1).padStart(3, '0')}`,
          overrides: {},
        })),
        lanes,
        items: 100,
        base: {},
      });
      // The bench stack's steps behind the sleeping, tracing wrapper.
      const configFile = path.join(created.dir, 'loop.yaml');
      const yaml = parse(await readFile(configFile, 'utf8')) as Record<string, unknown>;
      const wrap = (step: string, script: string) => [
        '/bin/sh',
        STEP,
        step,
        path.join(STACK, script),
        String(jobMs[0]),
        String(jobMs[1]),
      ];
      yaml.commands = {
        ...(yaml.commands as Record<string, unknown>),
        train: wrap('train', 'train.sh'),
        evaluate: wrap('evaluate', 'evaluate.sh'),
        evaluate_ensemble: wrap('evaluate-ensemble', 'evaluate-ensemble.sh'),
      };
      await writeFile(configFile, stringify(yaml));
      const folder: LoopFolder = { ...created, config: await loadLoopConfig(configFile) };
      const mine = (text: string, device: number) =>
        parseTrace(text, String(device)).filter((step) => (step.config ?? step.manifest ?? '').startsWith(created.dir));
      const readSteps = async () =>
        (await Promise.all(devices.map((device) => readFile(traceFile(device), 'utf8').catch(() => '')))).flatMap(
          (text, device) => mine(text, device),
        );
      const finished = async () => (await readSteps()).filter((step) => step.step === 'evaluate').length;
      const cpu = async () => ({
        orchestrator: orchestratorPid === undefined ? null : await processCpu(orchestratorPid),
        server: await processCpu(server.pid),
        box: await boxCpu(),
      });
      const before = await cpu();
      log(
        `fleet ${name}: ${rounds * size} jobs (${rounds} rounds x ${size} candidates, training ${jobMs[0]}-${jobMs[1]} ms) on ${size} lanes in ${processes} processes; load ${loads(loadBefore)}`,
      );
      const run = await runRounds({
        client,
        loopId: name,
        folder,
        rounds,
        jobs: rounds * size,
        finished,
        timeoutMs: budgetS * 1000,
        onTimeout: 'stop',
        progress: (line) => log(`fleet ${name}: ${line}`),
      });
      const after = await cpu();
      const loadAfter = os.loadavg();
      const wallS = (run.doneAt - run.startedAt) / 1000;

      const traced = tracedJobs(await readSteps());
      const gaps = dispatchGaps(traced, () => size / processes).map((d) => d.gap);
      const window = steadyWindow(
        traced.map((job) => job.start),
        size,
      );
      const spans = traced.flatMap((job) => (job.train ? [job.train, job.evaluate] : [job.evaluate]));
      const startsIn = window ? traced.filter((job) => job.start > window.from && job.start <= window.to).length : 0;
      const windowS = window ? (window.to - window.from) / 1000 : Number.NaN;
      const chain = await runHistories(client, loopWorkflowId(name));
      const wft = workflowTaskStats(chain, window ?? { from: run.startedAt, to: run.doneAt });
      const delta = (pick: (c: typeof before) => { own: number } | null) => {
        const a = pick(before);
        const b = pick(after);
        return a && b ? b.own - a.own : Number.NaN;
      };
      const orchestratorS = delta((c) => c.orchestrator);
      const serverS = delta((c) => c.server);
      const box =
        before.box && after.box ? (after.box.busy - before.box.busy) / (after.box.total - before.box.total) : null;
      const result: FleetRun = {
        name,
        lanes: size,
        jobMs,
        rounds,
        complete: run.complete,
        jobs: traced.length,
        dispatch: summarize(gaps),
        ratePerS: startsIn / windowS,
        busy: window ? busyFraction(spans, size, window) : Number.NaN,
        windowS,
        workflowTasks: wft,
        orchestratorCpuMsPerDispatch: (1000 * orchestratorS) / traced.length,
        serverCpuMsPerDispatch: (1000 * serverS) / traced.length,
        orchestratorCores: orchestratorS / wallS,
        serverCores: serverS / wallS,
        boxBusy: box,
        loadBefore,
        loadAfter,
        calibrationMs: calibration.workloadMs,
        wallS,
      };
      log(
        `fleet ${name}: dispatch p50 ${ms(result.dispatch.p50)} / p99 ${ms(result.dispatch.p99)} ms, ${result.ratePerS.toFixed(1)} dispatches/s, busy ${(100 * result.busy).toFixed(1)}%, ` +
          `workflow tasks ${wft.ratePerS.toFixed(1)}/s (schedule-to-start p99 ${ms(wft.scheduleToStart.p99)} ms, generation occupied ${(100 * wft.occupancy).toFixed(0)}%), orchestrator ${ms(result.orchestratorCpuMsPerDispatch)} ms CPU/dispatch, ` +
          `box ${box === null ? 'n/a' : `${(100 * box).toFixed(0)}%`} busy; load ${loads(loadAfter)}`,
      );
      return result;
    };
    return { measure, historyWarnings: () => server.historyWarnings(), close };
  } catch (error) {
    await close();
    throw error;
  }
}

export async function runFleet(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const { options, log } = ctx;
  const largest = Math.max(...options.fleetSizes);
  const sizes: FleetRun[] = [];
  const steps: FleetRun[] = [];
  const fleet = await openFleet(ctx, 'fleet');
  let warnings: string[];
  try {
    for (const size of options.fleetSizes)
      sizes.push(await fleet.measure(`fleet-${size}`, size, options.fleetJobMs, options.fleetRounds, 600));
    for (const [min, max] of options.fleetSteps) {
      // About 20 s of offered work a step, at most ~800 jobs, at least four rounds.
      const mean = (min + max) / 2 + 50;
      const rounds = Math.max(4, Math.min(Math.ceil(20_000 / mean), Math.ceil(800 / largest)));
      const step = await fleet.measure(`fleet-${largest}-${min}-${max}`, largest, [min, max], rounds, 240);
      steps.push(step);
      if (step.dispatch.p99 > P99_LIMIT_MS) break;
    }
    warnings = await fleet.historyWarnings();
  } finally {
    await fleet.close();
  }
  // Side by side: the largest size again, on a server whose one history shard may read its transfer
  // queue 1000 times a second instead of Temporal's 20 (what that trade buys and costs, in this run).
  const fastReads = await openFleet(ctx, 'fleet-fast-reads', { [TRANSFER_READS_KEY]: FAST_TRANSFER_READS });
  let atFast: FleetRun;
  try {
    atFast = await fastReads.measure(
      `fleet-${largest}-fast-reads`,
      largest,
      options.fleetJobMs,
      options.fleetRounds,
      600,
    );
  } finally {
    await fastReads.close();
  }
  const ceiling = dispatchCeiling(
    [...sizes, ...steps].map((run) => ({ ratePerS: run.ratePerS, p99Ms: run.dispatch.p99 })),
    P99_LIMIT_MS,
  );

  const figures: Figure[] = [];
  const machine = (run: FleetRun) =>
    `load ${loads(run.loadBefore)} -> ${loads(run.loadAfter)}, calibration ${run.calibrationMs.toFixed(0)} ms, box CPU ${run.boxBusy === null ? 'n/a' : `${(100 * run.boxBusy).toFixed(0)}%`} busy`;
  for (const run of sizes) {
    const big = run.lanes >= 64;
    const label = `${run.lanes} lanes`;
    const wft = run.workflowTasks;
    figures.push(
      figure(
        'fleet',
        `${label}: dispatch p50 (${run.dispatch.n} dispatches, ${run.jobMs[0] / 1000}-${run.jobMs[1] / 1000} s jobs)`,
        run.dispatch.p50,
        'ms',
        null,
        `${machine(run)}${run.complete ? '' : '; budget ran out'}`,
      ),
      figure('fleet', `${label}: dispatch p99`, run.dispatch.p99, 'ms', big ? { op: '<', value: 500 } : null),
      figure(
        'fleet',
        `${label}: lane idle share while work waited (1 - busy)`,
        100 * (1 - run.busy),
        '%',
        big ? { op: '<=', value: 3 } : null,
        `busy ${(100 * run.busy).toFixed(1)}% of ${run.lanes} slots over the steady window (${run.windowS.toFixed(0)} s); goal: >= 97% busy`,
      ),
      figure(
        'fleet',
        `${label}: generation workflow tasks per second`,
        wft.ratePerS,
        '/s',
        null,
        `${wft.completed} tasks; ${(wft.events / run.jobs).toFixed(1)} events per job, ${wft.runs} run(s) of the chain`,
      ),
      figure(
        'fleet',
        `${label}: workflow task schedule-to-start p50 / p99`,
        wft.scheduleToStart.p50,
        'ms',
        null,
        `p99 ${ms(wft.scheduleToStart.p99)} ms; task started -> completed p50 ${ms(wft.taskTime.p50)}, p99 ${ms(wft.taskTime.p99)} ms; a task outstanding ${(100 * wft.occupancy).toFixed(0)}% of the time`,
      ),
      figure(
        'fleet',
        `${label}: orchestrator CPU per dispatch`,
        run.orchestratorCpuMsPerDispatch,
        'ms',
        null,
        `${(100 * run.orchestratorCores).toFixed(0)}% of a core; dev server ${ms(run.serverCpuMsPerDispatch)} ms per dispatch, ${(100 * run.serverCores).toFixed(0)}% of a core`,
      ),
    );
  }
  // What faster transfer-queue reads buy and cost: the same size on a server reading up to 1000 times a second.
  const ours = sizes.find((run) => run.lanes === largest);
  const readsNote = (run: FleetRun) =>
    `busy ${(100 * run.busy).toFixed(1)}%, generation workflow task schedule-to-start p50 ${ms(run.workflowTasks.scheduleToStart.p50)} ms, ${(run.workflowTasks.events / run.jobs).toFixed(1)} events per job; ${machine(run)}`;
  const label = `${largest} lanes, transfer queue read up to ${FAST_TRANSFER_READS} times a second (Temporal's default: 20)`;
  figures.push(
    figure('fleet', `${label}: dispatch p50`, atFast.dispatch.p50, 'ms', null, readsNote(atFast)),
    figure('fleet', `${label}: dispatch p99`, atFast.dispatch.p99, 'ms', null),
    figure(
      'fleet',
      `${largest} lanes: dispatch p50 at ${FAST_TRANSFER_READS} reads a second / at Temporal's 20`,
      ours ? atFast.dispatch.p50 / ours.dispatch.p50 : null,
      'x',
      null,
      ours
        ? `p99 ${ms(atFast.dispatch.p99)} / ${ms(ours.dispatch.p99)} ms; busy ${(100 * atFast.busy).toFixed(1)}% / ${(100 * ours.busy).toFixed(1)}%; events per job ${(atFast.workflowTasks.events / atFast.jobs).toFixed(1)} / ${(ours.workflowTasks.events / ours.jobs).toFixed(1)}; generation workflow tasks ${atFast.workflowTasks.ratePerS.toFixed(1)} / ${ours.workflowTasks.ratePerS.toFixed(1)} a second (${TRANSFER_READS_KEY}; measured in this run, one after the other)`
        : null,
    ),
  );
  for (const run of steps)
    figures.push(
      figure(
        'fleet',
        `ceiling search, ${run.lanes} lanes, ${run.jobMs[0]}-${run.jobMs[1]} ms jobs: dispatches per second`,
        run.ratePerS,
        '/s',
        null,
        `dispatch p50 ${ms(run.dispatch.p50)} / p99 ${ms(run.dispatch.p99)} ms over ${run.dispatch.n}; busy ${(100 * run.busy).toFixed(0)}%; ` +
          `workflow tasks ${run.workflowTasks.ratePerS.toFixed(1)}/s, schedule-to-start p99 ${ms(run.workflowTasks.scheduleToStart.p99)} ms, task p99 ${ms(run.workflowTasks.taskTime.p99)} ms, a task outstanding ${(100 * run.workflowTasks.occupancy).toFixed(0)}% of the time; ` +
          `orchestrator ${ms(run.orchestratorCpuMsPerDispatch)} ms CPU/dispatch (${(100 * run.orchestratorCores).toFixed(0)}% of a core), server ${(100 * run.serverCores).toFixed(0)}% of a core; ${machine(run)}${run.complete ? '' : '; budget ran out'}`,
      ),
    );
  const rate = ceiling.ceilingPerS;
  // Past the ceiling the queue never empties: the rate then is what the generation can do at most, at any latency.
  const saturated = Math.max(...[...sizes, ...steps].map((run) => run.ratePerS).filter(Number.isFinite));
  const bound = ceiling.passed ? '' : `; no step passed p99 ${P99_LIMIT_MS} ms, so the true ceiling is higher`;
  figures.push(
    figure(
      'fleet',
      `dispatch ceiling of one generation (p99 <= ${P99_LIMIT_MS} ms)`,
      rate,
      '/s',
      null,
      `the highest rate measured with dispatch p99 within ${P99_LIMIT_MS} ms${bound}`,
    ),
    figure(
      'fleet',
      'highest dispatch rate measured, at any p99',
      Number.isFinite(saturated) ? saturated : null,
      '/s',
      null,
      Number.isFinite(saturated)
        ? `at it one generation would carry ${lanesCarried(saturated, 600).toFixed(0)} lanes of 10-minute jobs, ${lanesCarried(saturated, 3600).toFixed(0)} of 1-hour jobs, at that step's p99`
        : null,
    ),
    figure(
      'fleet',
      'generation time per dispatch at the ceiling (1 / ceiling)',
      rate === null ? null : 1000 / rate,
      'ms',
      { op: '<=', value: 100 },
      'goal: >= 10 dispatches per second on this 2-core box',
    ),
    figure(
      'fleet',
      'lanes one generation carries on 10-minute jobs',
      rate === null ? null : lanesCarried(rate, 600),
      '',
      null,
      rate === null ? null : `${rate.toFixed(2)} dispatches/s x 600 s (lanes = rate x job length)`,
    ),
    figure(
      'fleet',
      'lanes one generation carries on 1-hour jobs',
      rate === null ? null : lanesCarried(rate, 3600),
      '',
      null,
      rate === null ? null : `${rate.toFixed(2)} dispatches/s x 3,600 s`,
    ),
  );
  const details = {
    processes: options.fleetProcesses,
    sizes,
    steps,
    atFastTransferReads: atFast,
    ceiling: { ...ceiling, limitMs: P99_LIMIT_MS },
    serverHistoryWarnings: warnings,
  };
  // A full run's figures also go to their own file, kept beside latest.json; a quick run's only to --out.
  if (!options.quick) {
    const outFile = path.join(PROJECT_ROOT, 'bench', 'results', 'fleet.json');
    const calibration = calibrate();
    await writeFile(
      outFile,
      `${JSON.stringify({ when: new Date().toISOString(), cores: os.cpus().length, calibrationAtEnd: calibration, details }, null, 2)}\n`,
    );
    log(`fleet: results in ${path.relative(PROJECT_ROOT, outFile)}`);
  }
  return { figures, details, notes: [] };
}
