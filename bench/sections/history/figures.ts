// What the history section reports: the history figures (section 3), the replay figures
// (section 4), the client figures (section 5), a note of the events by type, and the details.
import { figure, type Figure } from '../../lib/figures.js';
import { activityFailures, inputBytes } from '../../lib/history.js';
import type { BenchOptions } from '../../lib/options.js';
import type { ChainCounts } from './chain.js';
import type { HistoryLoop, HistoryRun } from './loop.js';
import type { ReplayMeasures } from './replay.js';
import type { StoppedStatus } from './stopped-status.js';

/** Everything the section measured, step by step. */
export interface HistoryMeasures {
  readonly options: BenchOptions;
  readonly loop: HistoryLoop;
  readonly run: HistoryRun;
  readonly stopped: StoppedStatus;
  readonly chain: ChainCounts;
  readonly replay: ReplayMeasures;
}

/** Fewer runs done than asked for: the figures of the whole generation are extrapolated. */
const extrapolated = ({ options, run }: HistoryMeasures): boolean =>
  !run.run.complete || run.run.done < options.historyRuns;
const label = ({ run }: HistoryMeasures): string => `${run.run.done}-run generation`;

/** Section 3, what the generation's history holds: events per run, per eval, in all; the largest run. */
export function historyEventFigures(m: HistoryMeasures): Figure[] {
  const { options, run, chain } = m;
  const { done } = run.run;
  const evals = run.run.result.view.test_evals;
  return [
    figure(
      'history',
      `generation events per training run (bench stack, ${done} runs)`,
      chain.perRun,
      '',
      { op: '<=', value: 8 },
      `${options.historyCandidates} candidates/round, ${run.ensembles} round ensembles included; per type in results`,
    ),
    figure(
      'history',
      'generation events per eval',
      evals > 0 ? chain.total / evals : null,
      '',
      null,
      `${evals} test evals`,
    ),
    figure(
      'history',
      `generation events in all, ${label(m)}`,
      chain.total,
      '',
      null,
      `${chain.chain.length} runs of the chain (continue-as-new suggested at ${options.historyCanEvents ?? '4,000'} events)`,
    ),
    ...(extrapolated(m)
      ? [
          figure(
            'history',
            `EXTRAPOLATED events of a ${options.historyRuns}-run generation`,
            chain.perRun * options.historyRuns,
            '',
            null,
            `from ${done} runs`,
          ),
        ]
      : []),
    figure('history', 'largest run of the chain: events', Math.max(...chain.totals), ''),
    figure(
      'history',
      'largest run of the chain: history size',
      Math.max(...chain.sizes, 0) / 2 ** 20,
      'MiB',
      { op: '<', value: 10 },
      'Temporal warns at 10 MB',
    ),
    figure(
      'history',
      'largest run input (the continue-as-new carry)',
      chain.carry / 1024,
      'KiB',
      { op: '<', value: 512 },
      'Temporal warns at 512 KB per payload',
    ),
  ];
}

/** Section 3, how the generation ran: evaluations lost, size warnings, wall time, CPU per run. */
export function historyRunFigures(m: HistoryMeasures): Figure[] {
  const { options, loop, run, chain } = m;
  const { perMinute, cpuMsPerRun } = run;
  const evals = run.run.result.view.test_evals;
  return [
    // One eval per run (one checkpoint) and per ensemble; test_evals counts the ok ones.
    figure(
      'history',
      'evaluations without a report (bench stack)',
      Math.max(0, run.run.done + run.ensembles - evals),
      '',
      null,
      run.errors[0] ?? 'step log errors in the results file',
    ),
    figure(
      'history',
      'history/size warnings in the server log',
      chain.warnings.length,
      '',
      { op: '<=', value: 0 },
      chain.warnings[0]?.slice(0, 160) ?? null,
    ),
    figure(
      'history',
      run.run.complete
        ? `wall time, ${label(m)}`
        : `wall time until the budget ran out (${run.run.doneAtStop} runs done then)`,
      run.wallMs / 1000,
      's',
      null,
      `${perMinute.toFixed(0)} runs/min on ${loop.lanes.length} lanes`,
    ),
    figure(
      'history',
      'CPU per run: workers (this process)',
      cpuMsPerRun.workersInThisProcess,
      'ms',
      null,
      'workflow tasks and activities of the orchestrator and lanes',
    ),
    figure('history', 'CPU per run: step processes', cpuMsPerRun.stepProcesses, 'ms'),
    figure('history', 'CPU per run: dev server', cpuMsPerRun.devServer, 'ms'),
    ...(extrapolated(m)
      ? [
          figure(
            'history',
            `EXTRAPOLATED wall time, ${options.historyRuns} runs`,
            (options.historyRuns / perMinute) * 60,
            's',
            null,
            `at the measured ${perMinute.toFixed(0)} runs/min`,
          ),
        ]
      : []),
  ];
}

/** Section 4: replaying the chain in a fresh process, and a fresh orchestrator taking the generation over. */
export function replayFigures({ run, chain, replay }: HistoryMeasures): Figure[] {
  const { single, fit } = replay;
  const takeover = run.idle.takeover;
  return [
    figure(
      'replay',
      `replay of the largest run (${single.replays[0]?.events ?? '?'} events), fresh process`,
      replay.replayMs,
      'ms',
      { op: '<', value: 2000 },
      'Worker.runReplayHistory, real bundle; excludes node/tsx start-up',
    ),
    figure(
      'replay',
      `replay of every run of the chain (${chain.chain.length} runs)`,
      replay.chainMs,
      'ms',
      null,
      'one process, run after run',
    ),
    figure(
      'replay',
      'replay cost per 1,000 events (slope over prefixes)',
      fit === null ? null : fit.slope * 1000,
      'ms',
      null,
      fit === null
        ? null
        : `fixed cost per replay ${fit.intercept.toFixed(0)} ms; so a 4,000-event run takes ~${(fit.intercept + fit.slope * 4000).toFixed(0)} ms`,
    ),
    figure(
      'replay',
      'replaying process peak RSS (VmHWM)',
      single.peakAfterReplaysMiB,
      'MiB',
      { op: '<', value: 400 },
      `RSS ${single.rssAtStartMiB?.toFixed(0) ?? '?'} MiB at start, ${single.rssAfterReplaysMiB?.toFixed(0) ?? '?'} after`,
    ),
    figure(
      'replay',
      'fresh orchestrator process: first state query',
      takeover?.firstQueryMs ?? null,
      'ms',
      null,
      takeover
        ? `the old worker shut down; the query goes to the new one, which replays the current run (${takeover.currentRunEvents} events) first`
        : null,
    ),
  ];
}

/** Section 5: the client's `status`, with the loop running and with no orchestrator to ask. */
export function clientFigures({ run, chain, stopped }: HistoryMeasures): Figure[] {
  const status = run.idle.status;
  const evals = run.run.result.view.test_evals;
  return [
    figure(
      'client',
      `status round trip p50 (${status?.n ?? 0} calls, ${evals} evals)`,
      status?.p50 ?? null,
      'ms',
      { op: '<', value: 200 },
      `loopStatus: describe + state query; the loop ${run.run.complete ? 'idle, holding every eval' : 'still busy: the budget ran out'}`,
    ),
    figure('client', 'status round trip p95', status?.p95 ?? null, 'ms', { op: '<', value: 200 }),
    figure(
      'client',
      `status of the loop with no orchestrator to ask (${evals} evals, ${chain.chain.length} runs in history)`,
      stopped.stoppedMs,
      'ms',
      { op: '<', value: 200 },
      `lastLoopState, median of 3: the newest generation and packaging runs folded (a stopped loop's status, in-process); the whole ledger export of the same loop, every run and the copy: ${stopped.wholeExportMs.toFixed(0)} ms`,
    ),
  ];
}

/** The generation's events per training run, by type, as a table. */
export function eventsByTypeNote({ run, chain }: HistoryMeasures): string {
  const typeWidth = Math.max(...Object.keys(chain.perType).map((type) => type.length));
  return [
    `history: generation events per training run, by type (${run.run.done} runs, ${chain.chain.length} run(s) of the chain)`,
    ...Object.entries(chain.perType).map(([type, count]) => `${type.padEnd(typeWidth)}  ${count.toFixed(2)}`),
  ].join('\n');
}

export function historyDetails({
  options,
  loop,
  run,
  stopped,
  chain,
  replay,
}: HistoryMeasures): Record<string, unknown> {
  const takeover = run.idle.takeover;
  return {
    runsAsked: options.historyRuns,
    runsDone: run.run.done,
    roundEnsembles: run.ensembles,
    complete: run.run.complete,
    candidatesPerRound: options.historyCandidates,
    lanes: loop.lanes.length,
    wallMs: run.wallMs,
    runsDoneAtStop: run.run.doneAtStop,
    runsPerMinute: run.perMinute,
    cpuMsPerRun: run.cpuMsPerRun,
    chainRuns: chain.chain.length,
    eventsPerChainRun: chain.totals,
    historyBytesPerChainRun: chain.sizes,
    largestInputBytes: chain.carry,
    inputBytesPerChainRun: chain.chain.map(inputBytes),
    suggestContinueAsNewAt: options.historyCanEvents ?? 'temporal-dev.yaml',
    eventsTotal: chain.total,
    eventsPerRun: chain.perRun,
    eventsPerRunByType: chain.perType,
    activityFailures: activityFailures(chain.chain),
    stepLogErrors: run.errors,
    testEvals: run.run.result.view.test_evals,
    serverHistoryWarnings: chain.warnings.slice(0, 20),
    replay: { largest: replay.single, chain: replay.whole },
    coldTakeover: {
      firstQueryMs: takeover?.firstQueryMs ?? null,
      currentRunEvents: takeover?.currentRunEvents ?? null,
    },
    statusMs: run.idle.status,
    stoppedStatusMs: stopped.stoppedMs,
    wholeExportMs: stopped.wholeExportMs,
  };
}
