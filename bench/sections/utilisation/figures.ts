// The figures of a utilisation run: dispatch latency, (in-process) the process start floor, the
// event loop's delay and the seed policy beside ours, the makespan against its bounds,
// (in-process) the generation's events per run, and (lane processes) their memory.
import { figure, type Figure } from '../../lib/figures.js';
import type { BenchOptions } from '../../lib/options.js';
import type { WorkerMemory } from './bounded-run.js';
import type { ProcessStartBaseline, UtilisationMeasures } from './measures.js';

function dispatchFigures({ plan, jobs }: UtilisationMeasures): Figure[] {
  const { section, placement } = plan;
  const ours = jobs.dispatchMs;
  const steps = jobs.trainToEvaluateMs;
  return [
    figure(section, `dispatch latency p50 (${ours.n} dispatches)`, ours.p50, 'ms'),
    figure(section, 'dispatch latency p95', ours.p95, 'ms'),
    figure(
      section,
      'dispatch latency p99',
      ours.p99,
      'ms',
      placement === null ? { op: '<', value: 250 } : null,
      placement === null ? null : 'the goal is judged in-process; shown for comparison',
    ),
    figure(section, 'train end -> evaluate start on the lane, p50', steps.p50, 'ms'),
    figure(section, 'train end -> evaluate start, p99', steps.p99, 'ms'),
  ];
}

/** The last dispatch stage's floor, during the run and after it, and the worker process's event loop delay. */
function processStartFigures({ plan, measured }: UtilisationMeasures, baseline: ProcessStartBaseline): Figure[] {
  const { section } = plan;
  const { spawnDuringRun, loopDelay } = measured;
  return [
    figure(
      section,
      'step spawn -> its program starts, during the run, p50',
      spawnDuringRun?.p50 ?? null,
      'ms',
      null,
      `sampled every 2 s (${spawnDuringRun?.n ?? 0}), a node command; compare the last dispatch stage`,
    ),
    figure(
      section,
      'the same after the run (bench idle), p50',
      baseline.spawnToCommand.p50,
      'ms',
      null,
      `\`node -e 0\` wall time then: ${baseline.node.p50.toFixed(0)} ms`,
    ),
    figure(
      section,
      'event loop delay of the worker process during the run, p99',
      loopDelay.p99,
      'ms',
      null,
      `p50 ${loopDelay.p50.toFixed(0)} ms, max ${loopDelay.max.toFixed(0)} ms; orchestrator and lanes share it in-process`,
    ),
  ];
}

/** The Python loop's policy on the same trace, and how it compares with ours. */
function seedPolicyFigures({ plan, jobs, seed, makespan }: UtilisationMeasures): Figure[] {
  const { section } = plan;
  const ours = jobs.dispatchMs;
  const theirs = seed.dispatchMs;
  return [
    figure(section, `seed policy (poll 30 s, gap 30 s) dispatch p50, same trace`, theirs.p50, 'ms'),
    figure(section, 'seed policy dispatch p99, same trace', theirs.p99, 'ms'),
    figure(section, 'seed / ours, dispatch p50', theirs.p50 / ours.p50, 'x'),
    figure(section, 'seed / ours, dispatch p99', theirs.p99 / ours.p99, 'x'),
    figure(
      section,
      'seed / ours, makespan',
      seed.makespan / makespan.makespan,
      'x',
      null,
      `seed makespan ${(seed.makespan / 1000).toFixed(0)} s`,
    ),
  ];
}

function makespanFigures({ plan, jobs, makespan: m }: UtilisationMeasures, lanes: number): Figure[] {
  const util = plan.placement === null ? 'utilisation' : plan.section;
  const { traced, ensembles } = jobs;
  return [
    figure(
      util,
      `makespan, ${traced.length} jobs on ${lanes} slots`,
      m.makespan / 1000,
      's',
      null,
      ensembles > 0
        ? `${traced.length - ensembles} training runs and ${ensembles} round ensemble(s) the loop added`
        : null,
    ),
    figure(util, 'ideal lower bound max(work/lanes, longest)', m.ideal / 1000, 's'),
    figure(util, 'makespan / ideal', m.makespan / m.ideal, 'x', { op: '<=', value: 1.03 }),
    figure(
      util,
      'list schedule, zero latency, same order / ideal',
      m.listed / m.ideal,
      'x',
      null,
      `Graham bound ${(m.graham / m.ideal).toFixed(3)}x ideal`,
    ),
    figure(util, 'makespan / zero-latency list schedule', m.makespan / m.listed, 'x'),
    figure(util, 'lane utilisation (work / lanes x makespan)', (100 * m.totalWork) / (lanes * m.makespan), '%'),
    figure(
      util,
      'idle lane time per job',
      m.idlePerJob,
      'ms',
      plan.placement === null ? { op: '<=', value: 100 } : null,
      `mean job ${(m.meanWork / 1000).toFixed(2)} s of work; 3% overhead needs jobs >= ${(m.idlePerJob / 0.03 / 1000).toFixed(1)} s`,
    ),
  ];
}

/** The generation's history cost on the fixture stack: events per training run and per eval. */
function historyFigures({ jobs, breakdown, measured }: UtilisationMeasures, candidates: number): Figure[] {
  const runs = jobs.traced.length - jobs.ensembles;
  const { generationEvents, chain } = breakdown;
  const evals = measured.run.result.view.test_evals;
  return [
    figure(
      'history',
      'generation events per training run (fixture stack)',
      generationEvents / runs,
      '',
      { op: '<=', value: 8 },
      `${generationEvents} events over ${runs} runs (round ensembles included), ${chain.length} run(s) of the chain, ${candidates} candidates/round`,
    ),
    figure(
      'history',
      'generation events per eval (fixture stack)',
      evals > 0 ? generationEvents / evals : null,
      '',
      null,
      `${evals} test evals`,
    ),
  ];
}

/** Peak memory of the orchestrator and of the largest lane process. */
function memoryFigures(section: string, memory: WorkerMemory): Figure[] {
  const orchestrator = memory.get('orchestrator');
  const lanePeak = Math.max(
    ...[...memory].filter(([name]) => name.startsWith('lane-')).map(([, m]) => m?.hwmMiB ?? Number.NaN),
  );
  return [
    figure(
      section,
      'orchestrator process peak RSS (VmHWM)',
      orchestrator?.hwmMiB ?? null,
      'MiB',
      null,
      'bundles its workflows at start-up',
    ),
    figure(section, 'lane process peak RSS (largest)', Number.isFinite(lanePeak) ? lanePeak : null, 'MiB'),
  ];
}

/** Every figure of the run, in the order the table prints them. */
export function utilisationFigures(measures: UtilisationMeasures, options: BenchOptions): Figure[] {
  const inProcess = measures.plan.placement === null;
  // The baseline is measured for in-process runs only: it and the seed policy's figures go together.
  const { baseline } = measures;
  return [
    ...dispatchFigures(measures),
    ...(baseline === null ? [] : [...processStartFigures(measures, baseline), ...seedPolicyFigures(measures)]),
    ...makespanFigures(measures, options.lanes),
    ...(inProcess ? historyFigures(measures, options.candidates) : []),
    ...(measures.memory.size > 0 ? memoryFigures(measures.plan.section, measures.memory) : []),
  ];
}
