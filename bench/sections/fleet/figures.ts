// The fleet section's figures, one group at a time: per size, the fast transfer-queue reads beside
// the largest size, the ceiling search's steps, and the ceiling with the fleet it carries.
import { figure, type Figure } from '../../lib/figures.js';
import { lanesCarried, type dispatchCeiling } from '../../lib/fleet-math.js';
import { FAST_TRANSFER_READS, machine, ms, P99_LIMIT_MS, TRANSFER_READS_KEY, type FleetRun } from './fleet-run.js';

type Ceiling = ReturnType<typeof dispatchCeiling>;

/** A size's dispatch, busy share, the generation's workflow tasks and CPU per dispatch; goals at 64 lanes and more. */
export function sizeFigures(run: FleetRun): Figure[] {
  const big = run.lanes >= 64;
  const label = `${run.lanes} lanes`;
  const wft = run.workflowTasks;
  return [
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
  ];
}

/**
 * What faster transfer-queue reads buy and cost: the same size on a server reading up to 1000
 * times a second (`atFast`), beside the largest size's run at Temporal's 20 (`ours`, if measured).
 */
export function fastReadsFigures(atFast: FleetRun, ours: FleetRun | undefined, largest: number): Figure[] {
  const readsNote = (run: FleetRun) =>
    `busy ${(100 * run.busy).toFixed(1)}%, generation workflow task schedule-to-start p50 ${ms(run.workflowTasks.scheduleToStart.p50)} ms, ${(run.workflowTasks.events / run.jobs).toFixed(1)} events per job; ${machine(run)}`;
  const label = `${largest} lanes, transfer queue read up to ${FAST_TRANSFER_READS} times a second (Temporal's default: 20)`;
  return [
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
  ];
}

/** The largest size on a cluster (4 history shards, PostgreSQL) beside the dev server (one shard, SQLite). */
export function clusterFigures(
  onCluster: FleetRun | { readonly error: string },
  ours: FleetRun | undefined,
  largest: number,
): Figure[] {
  if ('error' in onCluster) return [];
  const label = `${largest} lanes on a cluster (4 history shards, PostgreSQL)`;
  const note = `busy ${(100 * onCluster.busy).toFixed(1)}%, generation workflow task schedule-to-start p50 ${ms(onCluster.workflowTasks.scheduleToStart.p50)} ms, ${(onCluster.workflowTasks.events / onCluster.jobs).toFixed(1)} events per job; server ${(100 * onCluster.serverCores).toFixed(0)}% of a core (PostgreSQL not counted); ${machine(onCluster)}`;
  return [
    figure('fleet', `${label}: dispatch p50`, onCluster.dispatch.p50, 'ms', null, note),
    figure('fleet', `${label}: dispatch p99`, onCluster.dispatch.p99, 'ms', null),
    figure('fleet', `${label}: lanes busy`, 100 * onCluster.busy, '%', null),
    figure(
      'fleet',
      `${largest} lanes: dispatch p50 on the cluster / on the dev server`,
      ours ? onCluster.dispatch.p50 / ours.dispatch.p50 : null,
      'x',
      null,
      ours
        ? `p99 ${ms(onCluster.dispatch.p99)} / ${ms(ours.dispatch.p99)} ms; busy ${(100 * onCluster.busy).toFixed(1)}% / ${(100 * ours.busy).toFixed(1)}%; measured in this run, one after the other, on the same box (the cluster's server and PostgreSQL share its cores with the loop)`
        : null,
    ),
  ];
}

/** A step of the ceiling search: the dispatch rate it reached, with its latency, busy share and CPU in the note. */
export function ceilingStepFigure(run: FleetRun): Figure {
  return figure(
    'fleet',
    `ceiling search, ${run.lanes} lanes, ${run.jobMs[0]}-${run.jobMs[1]} ms jobs: dispatches per second`,
    run.ratePerS,
    '/s',
    null,
    `dispatch p50 ${ms(run.dispatch.p50)} / p99 ${ms(run.dispatch.p99)} ms over ${run.dispatch.n}; busy ${(100 * run.busy).toFixed(0)}%; ` +
      `workflow tasks ${run.workflowTasks.ratePerS.toFixed(1)}/s, schedule-to-start p99 ${ms(run.workflowTasks.scheduleToStart.p99)} ms, task p99 ${ms(run.workflowTasks.taskTime.p99)} ms, a task outstanding ${(100 * run.workflowTasks.occupancy).toFixed(0)}% of the time; ` +
      `orchestrator ${ms(run.orchestratorCpuMsPerDispatch)} ms CPU/dispatch (${(100 * run.orchestratorCores).toFixed(0)}% of a core), server ${(100 * run.serverCores).toFixed(0)}% of a core; ${machine(run)}${run.complete ? '' : '; budget ran out'}`,
  );
}

/** The ceiling, the highest rate at any p99 over `runs` (sizes and steps), and the lanes a rate carries. */
export function ceilingFigures(ceiling: Ceiling, runs: readonly FleetRun[]): Figure[] {
  const rate = ceiling.ceilingPerS;
  // Past the ceiling the queue never empties: the rate then is what the generation can do at most, at any latency.
  const saturated = Math.max(...runs.map((run) => run.ratePerS).filter(Number.isFinite));
  const bound = ceiling.passed ? '' : `; no step passed p99 ${P99_LIMIT_MS} ms, so the true ceiling is higher`;
  return [
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
    ...carriedFigures(rate),
  ];
}

/** The generation's time per dispatch at the ceiling (the goal) and the lanes the ceiling carries. */
function carriedFigures(rate: number | null): Figure[] {
  return [
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
  ];
}
