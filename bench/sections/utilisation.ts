// Sections 1, 2 and 6: jobs of controlled duration (the fixture stack, training sleeps a seeded
// duration per candidate) on traced lanes. From one run: the dispatch latency per lane, the
// train-to-evaluate gap, where that time goes (histories), the makespan against its bounds,
// and the Python loop's polling policy (lib/seed-policy.ts) simulated on the same trace.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Client, Connection } from '@temporalio/client';
import { runHistories } from '../../src/ledger-copy/history-runs.js';
import { loopWorkflowId, trainingRunWorkflowId } from '../../src/workflows/ids.js';
import { runIdFor } from '../../src/rules/ids.js';
import {
  DISPATCH_STAGES,
  STEP_STAGES,
  dispatchBreakdown,
  stepBreakdown,
  type LogHeaders,
  type StageSamples,
} from '../lib/breakdown.js';
import { processStartBaseline, sampleSpawnStarts } from '../lib/baseline.js';
import { mapLimit, processMemory, type BenchContext } from '../lib/context.js';
import { drawDurations } from '../lib/durations.js';
import { figure, renderStages, type Figure } from '../lib/figures.js';
import {
  activityFailures,
  childTimeline,
  eventTypeCounts,
  generationTimeline,
  type ChildTimeline,
} from '../lib/history.js';
import { createLoopFolder, type LaneSpec } from '../lib/loop-folder.js';
import { grahamBound, idealMakespan, listScheduleMakespan } from '../lib/makespan.js';
import { runRounds } from '../lib/run-loop.js';
import { simulateSeedLoop, SEED_DEFAULTS } from '../lib/seed-policy.js';
import { startBenchServer } from '../lib/server.js';
import { dispatchGaps } from '../lib/slots.js';
import { summarize, type Summary } from '../lib/stats.js';
import { jobOfConfig, parseTrace, tracedJobs, type TracedJob } from '../lib/trace.js';
import { childWorkers, inProcessWorkers, laneChild, type RunningWorkers } from '../lib/workers.js';

const LOOP_ID = 'bench';
const HOST = 'bench';

/** null: orchestrator and lanes in this process; N: the lanes in N `worker gpu` processes, the orchestrator in one more. */
export type Placement = number | null;

export interface UtilisationOutcome {
  readonly figures: Figure[];
  readonly details: Record<string, unknown>;
  /** Text printed after the figures: where the dispatch time goes. */
  readonly notes: string[];
}

/** The time of a step log's first header line (`--- <ISO time> <step>: [...]`), written just before the step's program is spawned. */
async function logHeaderMs(file: string): Promise<number | null> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const match = /^--- (\S+) /.exec(text);
  const ms = match ? Date.parse(match[1] as string) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}

function stageTable(
  samples: StageSamples,
  stages: readonly (readonly [string, string])[],
): Record<string, Summary & { what: string }> {
  const table: Record<string, Summary & { what: string }> = {};
  for (const [name, what] of stages) table[name] = { ...summarize(samples.get(name) ?? []), what };
  return table;
}

/** Lanes of a placement: in-process and one process per lane, `lanes` lanes of one slot; else P lanes of lanes/P slots. */
function lanesOf(lanes: number, placement: Placement): LaneSpec[] {
  const count = placement === null ? lanes : placement;
  const slots = lanes / count;
  return Array.from({ length: count }, (_, device) => ({ host: HOST, device, slots }));
}

export async function runUtilisation(ctx: BenchContext, placement: Placement): Promise<UtilisationOutcome> {
  const { options, log } = ctx;
  const label = placement === null ? 'in-process' : `${placement} lane processes`;
  const section = placement === null ? 'dispatch' : `scale-out ${placement}p`;
  const server = await startBenchServer(ctx.cli, placement === null ? 'dispatch' : `scale-${placement}`);
  let workers: RunningWorkers | undefined;
  let connection: Connection | undefined;
  try {
    const lanes = lanesOf(options.lanes, placement);
    const slotsOf = new Map(lanes.map((lane) => [String(lane.device), lane.slots]));
    const durations = drawDurations(options.candidates, options.seed, options.jobMinMs, options.jobMaxMs);
    const names = durations.map((_, index) => `c${String(index + 1).padStart(2, '0')}`);
    const folder = await createLoopFolder({
      dir: path.join(server.dir, 'loop'),
      stack: 'fixture',
      candidates: names.map((name, index) => ({ name, overrides: { fixture_sleep_ms: durations[index] } })),
      lanes,
      items: options.items,
      base: { fixture_epochs: 1, fixture_quality: 0.5 },
    });
    const jobs = options.rounds * options.candidates;
    const traceFile = (device: number | null) =>
      path.join(server.dir, device === null ? 'trace.jsonl' : `trace-lane-${device}.jsonl`);
    const traceFiles = placement === null ? [traceFile(null)] : lanes.map((lane) => traceFile(lane.device));
    if (placement === null) {
      process.env.FIXTURE_TRACE = traceFile(null);
      workers = await inProcessWorkers({
        address: server.address,
        namespace: server.namespace,
        bundle: ctx.bundle,
        lanes,
      });
    } else {
      delete process.env.FIXTURE_TRACE;
      log(`${label}: starting ${lanes.length} lane processes and an orchestrator process`);
      workers = await childWorkers({
        address: server.address,
        namespace: server.namespace,
        logDir: server.dir,
        workers: [
          { name: 'orchestrator', args: ['orchestrator'] },
          ...lanes.map((lane) => laneChild(lane, { FIXTURE_TRACE: traceFile(lane.device) })),
        ],
      });
    }
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace });
    const readTraces = async (): Promise<string[]> =>
      Promise.all(traceFiles.map((file) => readFile(file, 'utf8').catch(() => '')));
    const finished = async (): Promise<number> =>
      (await readTraces()).reduce((sum, text) => sum + (text.match(/"step":"evaluate",/g)?.length ?? 0), 0);
    log(
      `${label}: ${jobs} jobs (${options.rounds} rounds x ${options.candidates} candidates, training ${options.jobMinMs}-${options.jobMaxMs} ms) on ${options.lanes} lane slots`,
    );
    // The in-process run samples the last dispatch stage's floor under the run's own load.
    const sampler = placement === null ? sampleSpawnStarts(2000) : null;
    // In-process, the lanes' activities and this process's event loop are one: how late does it run callbacks?
    const loopDelay = monitorEventLoopDelay({ resolution: 10 });
    // The histogram holds the sampling timer's whole interval: the delay is what exceeds it.
    const lateMs = (ns: number) => Math.max(0, ns / 1e6 - 10);
    loopDelay.enable();
    const run = await runRounds({
      client,
      loopId: LOOP_ID,
      folder,
      rounds: options.rounds,
      jobs,
      finished,
      timeoutMs: 60 * 60_000,
      progress: (line) => log(`${label}: ${line}`),
    });
    loopDelay.disable();
    const spawnDuringRun = await sampler?.stop();
    const memory = new Map<string, { hwmMiB: number; rssMiB: number } | null>();
    for (const [name, pid] of workers.pids) memory.set(name, await processMemory(pid));
    await workers.stop();
    workers = undefined;
    delete process.env.FIXTURE_TRACE;

    // ---- the trace: jobs on lanes ----
    const texts = await readTraces();
    const steps = texts.flatMap((text, index) =>
      parseTrace(text, placement === null ? undefined : String((lanes[index] as LaneSpec).device)),
    );
    const traced = tracedJobs(steps);
    const dispatches = dispatchGaps(traced, (lane) => slotsOf.get(lane) ?? 1);
    const gaps = dispatches.map((d) => d.gap);
    const stepGaps = traced.flatMap((job) => (job.train === null ? [] : [job.evaluate.start - job.train.end]));
    const ensembles = traced.filter((job) => job.kind === 'ensemble').length;
    const work = traced.map((job) => job.work);
    const totalWork = work.reduce((sum, value) => sum + value, 0);
    const first = Math.min(...traced.map((job) => job.start));
    const makespan = Math.max(...traced.map((job) => job.end)) - first;
    const ideal = idealMakespan(work, options.lanes);
    const listed = listScheduleMakespan(work, options.lanes);
    const graham = grahamBound(work, options.lanes);
    const idlePerJob = (options.lanes * makespan - totalWork) / traced.length;
    const meanWork = totalWork / traced.length;

    // ---- the histories: where a dispatch's time goes ----
    const chain = await runHistories(client, loopWorkflowId(LOOP_ID));
    const generation = generationTimeline(chain);
    const childIdOf = (job: TracedJob): string => {
      const id = job.kind === 'run' ? jobOfConfig(job.key) : null;
      return id ? trainingRunWorkflowId(LOOP_ID, id.generation, id.round, id.candidate, 1) : '';
    };
    const timelines = new Map<string, ChildTimeline>();
    await mapLimit(traced, 8, async (job) => {
      const id = childIdOf(job);
      if (id === '') return;
      const history = await client.workflow
        .getHandle(id)
        .fetchHistory()
        .catch(() => null);
      if (history?.events) timelines.set(id, childTimeline(history.events));
    });
    const childOf = (job: TracedJob) => timelines.get(childIdOf(job));
    const headers = new Map<string, LogHeaders>();
    await mapLimit(traced, 8, async (job) => {
      const id = job.kind === 'run' ? jobOfConfig(job.key) : null;
      if (!id) return;
      const runId = runIdFor(id.generation, id.round, id.candidate);
      const logs = path.join(folder.config.state_dir, 'logs');
      headers.set(job.key, {
        train: await logHeaderMs(path.join(logs, `${runId}.train.log`)),
        evaluate: await logHeaderMs(path.join(logs, `${runId}.test.eval.log`)),
      });
    });
    const headersOf = (job: TracedJob) => headers.get(job.key);
    const dispatchStages = dispatchBreakdown(dispatches, traced, childOf, childIdOf, generation, headersOf);
    const stepStages = stepBreakdown(traced, childOf, headersOf);
    const generationEvents = chain.reduce((sum, events) => sum + events.length, 0);
    const evals = run.result.view.test_evals;

    // ---- the Python loop's policy on the same trace ----
    const seed = simulateSeedLoop(work, options.lanes, SEED_DEFAULTS);
    const seedGaps = dispatchGaps(seed.jobs).map((d) => d.gap);

    let baselineDetails: unknown = null;
    const ours = summarize(gaps);
    const theirs = summarize(seedGaps);
    const steps2 = summarize(stepGaps);
    const figures: Figure[] = [
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
      figure(section, 'train end -> evaluate start on the lane, p50', steps2.p50, 'ms'),
      figure(section, 'train end -> evaluate start, p99', steps2.p99, 'ms'),
    ];
    if (placement === null) {
      const baseline = await processStartBaseline(10);
      baselineDetails = baseline;
      figures.push(
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
          lateMs(loopDelay.percentile(99)),
          'ms',
          null,
          `p50 ${lateMs(loopDelay.percentile(50)).toFixed(0)} ms, max ${lateMs(loopDelay.max).toFixed(0)} ms; orchestrator and lanes share it in-process`,
        ),
        figure(section, `seed policy (poll 30 s, gap 30 s) dispatch p50, same trace`, theirs.p50, 'ms'),
        figure(section, 'seed policy dispatch p99, same trace', theirs.p99, 'ms'),
        figure(section, 'seed / ours, dispatch p50', theirs.p50 / ours.p50, 'x'),
        figure(section, 'seed / ours, dispatch p99', theirs.p99 / ours.p99, 'x'),
        figure(
          section,
          'seed / ours, makespan',
          seed.makespan / makespan,
          'x',
          null,
          `seed makespan ${(seed.makespan / 1000).toFixed(0)} s`,
        ),
      );
    }
    const util = placement === null ? 'utilisation' : section;
    figures.push(
      figure(
        util,
        `makespan, ${traced.length} jobs on ${options.lanes} slots`,
        makespan / 1000,
        's',
        null,
        ensembles > 0
          ? `${traced.length - ensembles} training runs and ${ensembles} round ensemble(s) the loop added`
          : null,
      ),
      figure(util, 'ideal lower bound max(work/lanes, longest)', ideal / 1000, 's'),
      figure(util, 'makespan / ideal', makespan / ideal, 'x', { op: '<=', value: 1.03 }),
      figure(
        util,
        'list schedule, zero latency, same order / ideal',
        listed / ideal,
        'x',
        null,
        `Graham bound ${(graham / ideal).toFixed(3)}x ideal`,
      ),
      figure(util, 'makespan / zero-latency list schedule', makespan / listed, 'x'),
      figure(util, 'lane utilisation (work / lanes x makespan)', (100 * totalWork) / (options.lanes * makespan), '%'),
      figure(
        util,
        'idle lane time per job',
        idlePerJob,
        'ms',
        placement === null ? { op: '<=', value: 100 } : null,
        `mean job ${(meanWork / 1000).toFixed(2)} s of work; 3% overhead needs jobs >= ${(idlePerJob / 0.03 / 1000).toFixed(1)} s`,
      ),
    );
    if (placement === null) {
      figures.push(
        figure(
          'history',
          'generation events per training run (fixture stack)',
          generationEvents / (traced.length - ensembles),
          '',
          { op: '<=', value: 8 },
          `${generationEvents} events over ${traced.length - ensembles} runs (round ensembles included), ${chain.length} run(s) of the chain, ${options.candidates} candidates/round`,
        ),
        figure(
          'history',
          'generation events per eval (fixture stack)',
          evals > 0 ? generationEvents / evals : null,
          '',
          null,
          `${evals} test evals`,
        ),
      );
    }
    const processMemoryMiB = Object.fromEntries(memory);
    if (memory.size > 0) {
      const orchestrator = memory.get('orchestrator');
      const lanePeak = Math.max(
        ...[...memory].filter(([name]) => name.startsWith('lane-')).map(([, m]) => m?.hwmMiB ?? Number.NaN),
      );
      figures.push(
        figure(
          section,
          'orchestrator process peak RSS (VmHWM)',
          orchestrator?.hwmMiB ?? null,
          'MiB',
          null,
          'bundles its workflows at start-up',
        ),
        figure(section, 'lane process peak RSS (largest)', Number.isFinite(lanePeak) ? lanePeak : null, 'MiB'),
      );
    }
    log(
      `${label}: done; dispatch p50 ${ours.p50.toFixed(0)} ms p99 ${ours.p99.toFixed(0)} ms, makespan ${(makespan / 1000).toFixed(1)} s (${(makespan / ideal).toFixed(3)}x ideal)`,
    );
    const dispatchTable = stageTable(dispatchStages.samples, DISPATCH_STAGES);
    const stepTable = stageTable(stepStages.samples, STEP_STAGES);
    const rows = (table: typeof dispatchTable) => Object.entries(table).map(([name, row]) => ({ name, ...row }));
    const notes = [
      renderStages(
        `${label}: where a dispatch's time goes, a run's evaluator exit to the next run's trainer start on that lane (${dispatchStages.samples.values().next().value?.length ?? 0} of ${dispatches.length} dispatches; the rest involve a round ensemble)`,
        rows(dispatchTable),
      ),
      renderStages(
        `${label}: train end -> evaluate start within a run (${stepStages.samples.values().next().value?.length ?? 0} runs)`,
        rows(stepTable),
      ),
    ];
    return {
      figures,
      notes,
      details: {
        placement: label,
        lanes: lanes.map((lane) => ({ queue: `champion-loop.${lane.host}.gpu${lane.device}`, slots: lane.slots })),
        jobsPlanned: jobs,
        jobsTraced: traced.length,
        roundEnsembles: ensembles,
        trainingSleepMs: Object.fromEntries(names.map((name, index) => [name, durations[index]])),
        loopStartToFirstJobMs: first - run.startedAt,
        dispatchMs: ours,
        trainToEvaluateMs: steps2,
        dispatchStagesMs: dispatchTable,
        dispatchStagesSkipped: {
          count: dispatchStages.missing,
          why: 'dispatches to or from a round ensemble, or a history mark missing',
        },
        trainToEvaluateStagesMs: stepTable,
        makespanMs: makespan,
        idealMs: ideal,
        listScheduleMs: listed,
        grahamBoundMs: graham,
        totalWorkMs: totalWork,
        meanJobWorkMs: meanWork,
        idleLaneMsPerJob: idlePerJob,
        seedPolicy: {
          pollMs: SEED_DEFAULTS.pollMs,
          launchGapMs: SEED_DEFAULTS.launchGapMs,
          dispatchMs: theirs,
          makespanMs: seed.makespan,
        },
        generation: {
          runs: chain.length,
          events: generationEvents,
          eventsPerRun: generationEvents / (traced.length - ensembles),
          eventsPerRunByType: Object.fromEntries(
            [...eventTypeCounts(chain)].map(([type, count]) => [
              type,
              Number((count / (traced.length - ensembles)).toFixed(3)),
            ]),
          ),
          testEvals: evals,
          activityFailures: activityFailures(chain),
        },
        processStartBaselineMs: baselineDetails,
        spawnToCommandDuringRunMs: spawnDuringRun ?? null,
        eventLoopDelayMs:
          placement === null
            ? {
                p50: lateMs(loopDelay.percentile(50)),
                p99: lateMs(loopDelay.percentile(99)),
                max: lateMs(loopDelay.max),
                mean: lateMs(loopDelay.mean),
              }
            : null,
        processMemoryMiB,
        serverHistoryWarnings: await server.historyWarnings(),
      },
    };
  } finally {
    delete process.env.FIXTURE_TRACE;
    await workers?.stop();
    await connection?.close();
    await server.dispose(options.keep);
  }
}
