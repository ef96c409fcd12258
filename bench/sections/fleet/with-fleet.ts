// A fleet on a bench session: one orchestrator process and the lane processes on one dev server,
// and the measure of one generation there: its loop folder, the bounded run, then what its trace,
// its history and /proc say about it.
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { runHistories } from '../../../src/ledger-copy/history-runs.js';
import { loopWorkflowId } from '../../../src/workflows/ids.js';
import { withBenchSession, type BenchSession } from '../../lib/bench-session.js';
import { calibrate } from '../../lib/calibration.js';
import type { BenchContext } from '../../lib/context.js';
import type { BenchServer } from '../../lib/server.js';
import { workflowTaskStats } from '../../lib/fleet-math.js';
import type { LaneSpec, LoopFolder } from '../../lib/loop-folder.js';
import { runRounds, type BoundedRun } from '../../lib/run-loop.js';
import type { TraceStep } from '../../lib/trace.js';
import { laneChild } from '../../lib/workers.js';
import { loads, ms, type FleetRun, type FleetRunSpec } from './fleet-run.js';
import { fleetLoopFolder, readLoopSteps } from './loop.js';
import { cpuUse, sampleCpu, traceStats } from './run-stats.js';

const HOST = 'fleet';

/** A dev server with the fleet's lane processes and an orchestrator on it, and how to measure one generation there. */
export interface Fleet {
  measure(spec: FleetRunSpec): Promise<FleetRun>;
  historyWarnings(): Promise<string[]>;
}

/** The fleet's processes on a session's server: one lane process per device, each writing a trace file of its own. */
interface FleetProcesses {
  readonly session: BenchSession;
  readonly devices: readonly number[];
  readonly traceFile: (device: number) => string;
  readonly orchestratorPid: number | undefined;
}

/** The lanes of a generation of `size` slots: one per lane process, each with its share of the slots. */
const fleetLanes = (devices: readonly number[], size: number): LaneSpec[] =>
  devices.map((device) => ({ host: HOST, device, slots: size / devices.length }));

/**
 * Run `body` on a fleet on a server named `name` (temporal-dev.yaml's settings, `dynamicConfig`
 * over them); the processes stop and the server goes when it ends (withBenchSession).
 */
export async function withFleet<T>(
  ctx: BenchContext,
  name: string,
  dynamicConfig: Record<string, unknown>,
  body: (fleet: Fleet) => Promise<T>,
  start?: () => Promise<BenchServer>,
): Promise<T> {
  return withBenchSession(
    ctx,
    name,
    dynamicConfig,
    async (session) => {
      const processes = await startFleetProcesses(ctx, session);
      return body({
        measure: (spec) => measureGeneration(ctx, processes, spec),
        historyWarnings: () => session.server.historyWarnings(),
      });
    },
    start,
  );
}

async function startFleetProcesses(ctx: BenchContext, session: BenchSession): Promise<FleetProcesses> {
  const { options, log } = ctx;
  const processes = options.fleetProcesses;
  const largest = Math.max(...options.fleetSizes);
  const traceFile = (device: number) => path.join(session.server.dir, `trace-lane-${device}.jsonl`);
  const devices = Array.from({ length: processes }, (_, device) => device);
  log(`fleet: starting ${processes} lane processes of ${largest / processes} slots and an orchestrator process`);
  // Each process offers the largest size's slots; a smaller generation's loop.yaml gives its lanes fewer.
  const workers = await session.children([
    { name: 'orchestrator', args: ['orchestrator'] },
    ...fleetLanes(devices, largest).map((lane) => laneChild(lane, { FIXTURE_TRACE: traceFile(lane.device) })),
  ]);
  return { session, devices, traceFile, orchestratorPid: workers.pids.get('orchestrator') };
}

/** One generation on the fleet, measured: the load and calibration before, CPU around the run, trace and history after. */
async function measureGeneration(ctx: BenchContext, fleet: FleetProcesses, spec: FleetRunSpec): Promise<FleetRun> {
  const { server, client } = fleet.session;
  const { devices, traceFile } = fleet;
  const { name, size, jobMs, rounds } = spec;
  const loadBefore = os.loadavg();
  const calibration = calibrate();
  const folder = await fleetLoopFolder(path.join(server.dir, `loop-${name}`), fleetLanes(devices, size), size, jobMs);
  const readSteps = () => readLoopSteps(devices, traceFile, folder.dir);
  const before = await sampleCpu(fleet.orchestratorPid, server.pid);
  ctx.log(
    `fleet ${name}: ${rounds * size} jobs (${rounds} rounds x ${size} candidates, training ${jobMs[0]}-${jobMs[1]} ms) on ${size} lanes in ${devices.length} processes; load ${loads(loadBefore)}`,
  );
  const run = await boundedRun(ctx, client, folder, spec, readSteps);
  const after = await sampleCpu(fleet.orchestratorPid, server.pid);
  const loadAfter = os.loadavg();
  const wallS = (run.doneAt - run.startedAt) / 1000;

  const trace = traceStats(await readSteps(), size, size / devices.length);
  const chain = await runHistories(client, loopWorkflowId(name));
  const result: FleetRun = {
    name,
    lanes: size,
    jobMs,
    rounds,
    complete: run.complete,
    jobs: trace.jobs,
    dispatch: trace.dispatch,
    ratePerS: trace.ratePerS,
    busy: trace.busy,
    windowS: trace.windowS,
    workflowTasks: workflowTaskStats(chain, trace.window ?? { from: run.startedAt, to: run.doneAt }),
    ...cpuUse(before, after, trace.jobs, wallS),
    loadBefore,
    loadAfter,
    calibrationMs: calibration.workloadMs,
    wallS,
  };
  ctx.log(measuredLine(result));
  return result;
}

/** The loop run for `spec.rounds` rounds, done when every job's evaluate step is in the trace, stopped at the budget. */
function boundedRun(
  ctx: BenchContext,
  client: Client,
  folder: LoopFolder,
  spec: FleetRunSpec,
  readSteps: () => Promise<TraceStep[]>,
): Promise<BoundedRun> {
  return runRounds({
    client,
    loopId: spec.name,
    folder,
    rounds: spec.rounds,
    jobs: spec.rounds * spec.size,
    finished: async () => (await readSteps()).filter((step) => step.step === 'evaluate').length,
    timeoutMs: spec.budgetS * 1000,
    onTimeout: 'stop',
    progress: (line) => ctx.log(`fleet ${spec.name}: ${line}`),
  });
}

/** The log line of a measured generation. */
function measuredLine(result: FleetRun): string {
  const wft = result.workflowTasks;
  const box = result.boxBusy;
  return (
    `fleet ${result.name}: dispatch p50 ${ms(result.dispatch.p50)} / p99 ${ms(result.dispatch.p99)} ms, ${result.ratePerS.toFixed(1)} dispatches/s, busy ${(100 * result.busy).toFixed(1)}%, ` +
    `workflow tasks ${wft.ratePerS.toFixed(1)}/s (schedule-to-start p99 ${ms(wft.scheduleToStart.p99)} ms, generation occupied ${(100 * wft.occupancy).toFixed(0)}%), orchestrator ${ms(result.orchestratorCpuMsPerDispatch)} ms CPU/dispatch, ` +
    `box ${box === null ? 'n/a' : `${(100 * box).toFixed(0)}%`} busy; load ${loads(result.loadAfter)}`
  );
}
