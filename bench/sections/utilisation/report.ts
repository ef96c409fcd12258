// What a utilisation run prints after its figures (where the dispatch time goes) and the details
// it writes to the results file.
import { DISPATCH_STAGES, STEP_STAGES, type StageSamples } from '../../lib/breakdown.js';
import { renderStages } from '../../lib/figures.js';
import { activityFailures, eventTypeCounts } from '../../lib/history.js';
import { SEED_DEFAULTS } from '../../lib/seed-policy.js';
import { summarize, type Summary } from '../../lib/stats.js';
import type { UtilisationMeasures } from './measures.js';

type StageTable = Record<string, Summary & { what: string }>;

export interface StageTables {
  readonly dispatch: StageTable;
  readonly step: StageTable;
}

function stageTable(samples: StageSamples, stages: readonly (readonly [string, string])[]): StageTable {
  const table: StageTable = {};
  for (const [name, what] of stages) table[name] = { ...summarize(samples.get(name) ?? []), what };
  return table;
}

/** Each stage's summary of the dispatches and of the train-to-evaluate gaps. */
export function stageTables({ breakdown }: UtilisationMeasures): StageTables {
  return {
    dispatch: stageTable(breakdown.dispatchStages.samples, DISPATCH_STAGES),
    step: stageTable(breakdown.stepStages.samples, STEP_STAGES),
  };
}

/** How many samples a breakdown has (every stage has as many). */
function sampleCount(samples: StageSamples): number {
  return samples.values().next().value?.length ?? 0;
}

/** Where a dispatch's time goes and where a run's train-to-evaluate gap goes, as tables. */
export function stageNotes({ plan, jobs, breakdown }: UtilisationMeasures, tables: StageTables): string[] {
  const { label } = plan;
  const rows = (table: StageTable) => Object.entries(table).map(([name, row]) => ({ name, ...row }));
  return [
    renderStages(
      `${label}: where a dispatch's time goes, a run's evaluator exit to the next run's trainer start on that lane (${sampleCount(breakdown.dispatchStages.samples)} of ${jobs.dispatches.length} dispatches; the rest involve a round ensemble)`,
      rows(tables.dispatch),
    ),
    renderStages(
      `${label}: train end -> evaluate start within a run (${sampleCount(breakdown.stepStages.samples)} runs)`,
      rows(tables.step),
    ),
  ];
}

/** The run's log line once it is measured. */
export function doneLine({ plan, jobs, makespan: m }: UtilisationMeasures): string {
  const ours = jobs.dispatchMs;
  return `${plan.label}: done; dispatch p50 ${ours.p50.toFixed(0)} ms p99 ${ours.p99.toFixed(0)} ms, makespan ${(m.makespan / 1000).toFixed(1)} s (${(m.makespan / m.ideal).toFixed(3)}x ideal)`;
}

/** The generation's history over the run: its events, per training run and by type. */
function generationDetails({ jobs, breakdown, measured }: UtilisationMeasures): Record<string, unknown> {
  const { chain, generationEvents } = breakdown;
  const runs = jobs.traced.length - jobs.ensembles;
  return {
    runs: chain.length,
    events: generationEvents,
    eventsPerRun: generationEvents / runs,
    eventsPerRunByType: Object.fromEntries(
      [...eventTypeCounts(chain)].map(([type, count]) => [type, Number((count / runs).toFixed(3))]),
    ),
    testEvals: measured.run.result.view.test_evals,
    activityFailures: activityFailures(chain),
  };
}

/** The run's lanes, jobs and dispatch gaps with their stages. */
function dispatchDetails(measures: UtilisationMeasures, tables: StageTables): Record<string, unknown> {
  const { plan, jobs, makespan, measured, breakdown } = measures;
  return {
    placement: plan.label,
    lanes: plan.lanes.map((lane) => ({ queue: `champion-loop.${lane.host}.gpu${lane.device}`, slots: lane.slots })),
    jobsPlanned: plan.jobs,
    jobsTraced: jobs.traced.length,
    roundEnsembles: jobs.ensembles,
    trainingSleepMs: Object.fromEntries(plan.names.map((name, index) => [name, plan.durations[index]])),
    loopStartToFirstJobMs: makespan.first - measured.run.startedAt,
    dispatchMs: jobs.dispatchMs,
    trainToEvaluateMs: jobs.trainToEvaluateMs,
    dispatchStagesMs: tables.dispatch,
    dispatchStagesSkipped: {
      count: breakdown.dispatchStages.missing,
      why: 'dispatches to or from a round ensemble, or a history mark missing',
    },
    trainToEvaluateStagesMs: tables.step,
  };
}

/** The makespan and its bounds, and the seed policy's on the same trace. */
function makespanDetails({ makespan: m, seed }: UtilisationMeasures): Record<string, unknown> {
  return {
    makespanMs: m.makespan,
    idealMs: m.ideal,
    listScheduleMs: m.listed,
    grahamBoundMs: m.graham,
    totalWorkMs: m.totalWork,
    meanJobWorkMs: m.meanWork,
    idleLaneMsPerJob: m.idlePerJob,
    seedPolicy: {
      pollMs: SEED_DEFAULTS.pollMs,
      launchGapMs: SEED_DEFAULTS.launchGapMs,
      dispatchMs: seed.dispatchMs,
      makespanMs: seed.makespan,
    },
  };
}

/** Everything the results file keeps of the run; `historyWarnings` are the server log's size warnings. */
export function utilisationDetails(
  measures: UtilisationMeasures,
  tables: StageTables,
  historyWarnings: string[],
): Record<string, unknown> {
  const { plan, measured, baseline, memory } = measures;
  return {
    ...dispatchDetails(measures, tables),
    ...makespanDetails(measures),
    generation: generationDetails(measures),
    processStartBaselineMs: baseline,
    spawnToCommandDuringRunMs: measured.spawnDuringRun ?? null,
    eventLoopDelayMs: plan.placement === null ? measured.loopDelay : null,
    processMemoryMiB: Object.fromEntries(memory),
    serverHistoryWarnings: historyWarnings,
  };
}
