// Sections 3, 4 and 5 on one long generation: thousands of runs on the bench stack (shell steps,
// the cheapest the contract allows), then, with the loop still running, the `status` round
// trip; the history of every run of the generation (continue-as-new included) counted; its
// largest run replayed in a fresh process with the real bundle; and a fresh orchestrator
// process taking the running generation over.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { Worker } from '@temporalio/worker';
import { execa } from 'execa';
import { runHistories } from '../../src/ledger-copy/history-runs.js';
import { exportLedger, lastLoopState } from '../../src/client/ledger-export.js';
import { loopStatus } from '../../src/client/loop-control.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stateQuery } from '../../src/workflows/messages.js';
import { processCpu, type BenchContext } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { activityFailures, eventTypeCounts, inputBytes } from '../lib/history.js';
import { createLoopFolder } from '../lib/loop-folder.js';
import { runRounds } from '../lib/run-loop.js';
import { startBenchServer } from '../lib/server.js';
import { medianTime, summarize, timed, type Summary } from '../lib/stats.js';
import { childWorkers, inProcessWorkers, type RunningWorkers } from '../lib/workers.js';

const LOOP_ID = 'history';

/** Lines the steps wrote to their logs that read like errors (the bench stack's own messages, the shell's), first 20 distinct. */
async function stepErrors(logsDir: string): Promise<string[]> {
  const found = new Set<string>();
  for (const name of (await readdir(logsDir).catch(() => [])).filter((file) => file.endsWith('.log')).sort()) {
    const text = await readFile(path.join(logsDir, name), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      if (
        !line.startsWith('---') &&
        /error|cannot|can't|unknown|required|no such|denied|fork|killed|not found/i.test(line)
      )
        found.add(`${name}: ${line.slice(0, 200)}`);
      if (found.size >= 20) return [...found];
    }
  }
  return [...found];
}

/** Least-squares line through points; null with fewer than two distinct x. */
function lineFit(points: readonly (readonly [number, number])[]): { slope: number; intercept: number } | null {
  const n = points.length;
  const mx = points.reduce((sum, [x]) => sum + x, 0) / n;
  const my = points.reduce((sum, [, y]) => sum + y, 0) / n;
  const sxx = points.reduce((sum, [x]) => sum + (x - mx) ** 2, 0);
  if (n < 2 || sxx === 0) return null;
  const slope = points.reduce((sum, [x, y]) => sum + (x - mx) * (y - my), 0) / sxx;
  return { slope, intercept: my - slope * mx };
}

interface ReplayOutput {
  readonly replays: { file: string; events: number; readMs: number; replayMs: number }[];
  readonly cuts: { events: number; replayMs: number }[];
  readonly rssAtStartMiB: number | null;
  readonly rssAfterReplaysMiB: number | null;
  readonly peakAfterReplaysMiB: number | null;
  readonly peakRssMiB: number | null;
  readonly heapUsedMiB: number;
}

/** Replay history files in a fresh `node --import tsx bench/replay-child.ts` process. */
async function replayInFreshProcess(
  bundleFile: string,
  files: readonly string[],
  prefixes = false,
): Promise<ReplayOutput & { processMs: number }> {
  const start = Date.now();
  const script = path.join(PROJECT_ROOT, 'bench', 'replay-child.ts');
  const result = await execa(
    process.execPath,
    ['--import', 'tsx', script, ...(prefixes ? ['--prefixes'] : []), bundleFile, ...files],
    {
      cwd: PROJECT_ROOT,
      reject: false,
    },
  );
  if (result.exitCode !== 0) throw new Error(`replay failed (exit ${result.exitCode}): ${result.stderr.slice(-2000)}`);
  const line = result.stdout.trim().split('\n').pop() ?? '{}';
  return { ...(JSON.parse(line) as ReplayOutput), processMs: Date.now() - start };
}

export async function runHistory(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const { options, log } = ctx;
  const server = await startBenchServer(
    ctx.cli,
    'history',
    options.historyCanEvents === null ? {} : { 'limit.historyCount.suggestContinueAsNew': options.historyCanEvents },
  );
  let workers: (RunningWorkers & { orchestrator: Worker | null }) | undefined;
  let takeover: RunningWorkers | undefined;
  let connection: Connection | undefined;
  try {
    const candidates = Array.from({ length: options.historyCandidates }, (_, index) => ({
      name: `h${String(index + 1).padStart(2, '0')}`,
      overrides: {},
    }));
    const rounds = Math.ceil(options.historyRuns / options.historyCandidates);
    const runs = rounds * options.historyCandidates;
    const lanes = Array.from({ length: options.historyLanes }, (_, device) => ({ host: 'bench', device, slots: 1 }));
    const folder = await createLoopFolder({
      dir: path.join(server.dir, 'loop'),
      stack: 'bench',
      candidates,
      lanes,
      items: 100,
      base: {},
    });
    workers = await inProcessWorkers({
      address: server.address,
      namespace: server.namespace,
      bundle: ctx.bundle,
      lanes,
    });
    connection = await Connection.connect({ address: server.address });
    const client = new Client({ connection, namespace: server.namespace });
    const evalsDir = path.join(folder.config.state_dir, 'evals');
    // Evaluated training runs: evals/<run id>/ (round ensembles are evals/ens-...).
    const evaluated = async (prefix: string): Promise<number> =>
      (await readdir(evalsDir).catch(() => [])).filter((name) => name.startsWith(prefix)).length;
    const finished = () => evaluated('champ-');

    // Filled in while the loop idles (a closure: TypeScript would narrow plain lets to null).
    const measured: { status: Summary | null; coldQueryMs: number | null; coldRunEvents: number | null } = {
      status: null,
      coldQueryMs: null,
      coldRunEvents: null,
    };
    const cpuBefore = { bench: await processCpu('self'), server: await processCpu(server.pid) };
    const cpuAt: { after: typeof cpuBefore | null } = { after: null };
    log(
      `history: ${runs} runs (${rounds} rounds x ${options.historyCandidates} candidates) on ${lanes.length} lanes, bench stack; budget ${options.historyBudgetS} s`,
    );
    const run = await runRounds({
      client,
      loopId: LOOP_ID,
      folder,
      rounds,
      jobs: runs,
      finished,
      timeoutMs: options.historyBudgetS * 1000,
      onTimeout: 'stop',
      pollMs: 1000,
      progress: (line) => log(`history: ${line}`),
      whileIdle: async () => {
        cpuAt.after = { bench: await processCpu('self'), server: await processCpu(server.pid) };
        // Section 5: the client's `status` (describe + state query) on the loop holding every eval.
        await loopStatus(client, LOOP_ID);
        const times: number[] = [];
        for (let i = 0; i < options.statusCalls; i += 1) {
          const start = performance.now();
          await loopStatus(client, LOOP_ID);
          times.push(performance.now() - start);
        }
        measured.status = summarize(times);
        // A fresh orchestrator process takes the running generation over: the first query replays its current run.
        if (workers?.orchestrator) {
          workers.orchestrator.shutdown();
          const bundleFile = path.join(server.dir, 'takeover-bundle.js');
          await writeFile(bundleFile, ctx.bundle.code);
          takeover = await childWorkers({
            address: server.address,
            namespace: server.namespace,
            logDir: server.dir,
            workers: [{ name: 'orchestrator', args: [] }],
            command: () => [
              process.execPath,
              '--import',
              'tsx',
              path.join(PROJECT_ROOT, 'bench', 'orchestrator-child.ts'),
              server.address,
              server.namespace,
              bundleFile,
            ],
          });
          const start = performance.now();
          await client.workflow.getHandle(loopWorkflowId(LOOP_ID)).query(stateQuery);
          measured.coldQueryMs = performance.now() - start;
          measured.coldRunEvents = (await client.workflow.getHandle(loopWorkflowId(LOOP_ID)).describe()).historyLength;
        }
      },
    });
    const wallMs = run.doneAt - run.startedAt;
    // Runs per minute: the runs done by the time the loop was stopped (or went idle), over that time.
    const perMinute = (run.doneAtStop / wallMs) * 60_000;
    const cpu = cpuAt.after;
    const cpuPerRun = (pick: (c: typeof cpuBefore) => number | undefined): number | null => {
      const before = pick(cpuBefore);
      const after = cpu ? pick(cpu) : undefined;
      return before === undefined || after === undefined || !Number.isFinite(after - before)
        ? null
        : ((after - before) * 1000) / Math.max(1, run.doneAtStop);
    };
    const cpuMsPerRun = {
      workersInThisProcess: cpuPerRun((c) => c.bench?.own),
      stepProcesses: cpuPerRun((c) => c.bench?.children),
      devServer: cpuPerRun((c) => (c.server ? c.server.own + c.server.children : undefined)),
    };
    const done = run.done;
    const ensembles = await evaluated('ens-');
    const errors = await stepErrors(path.join(folder.config.state_dir, 'logs'));
    log(`history: ${done} runs ${run.complete ? '' : '(budget ran out) '}in ${(wallMs / 1000).toFixed(0)} s`);
    await takeover?.stop();
    takeover = undefined;
    await workers.stop();
    workers = undefined;

    // ---- section 5 too: `status` once no orchestrator answers (the loop stopped, or none polls) ----
    // It reads the newest runs only; beside it the whole ledger export reads every run and the copy.
    const stopped = await medianTime(3, () => lastLoopState(client, LOOP_ID));
    const wholeExport = await timed(() => exportLedger(client, LOOP_ID));
    log(
      `history: status without an orchestrator ${stopped.ms.toFixed(0)} ms; the whole ledger export ${wholeExport.ms.toFixed(0)} ms (${wholeExport.value.rows.length} rows)`,
    );

    // ---- section 3: the generation's history, every run of the chain ----
    const chain = await runHistories(client, loopWorkflowId(LOOP_ID));
    const totals = chain.map((events) => events.length);
    const total = totals.reduce((sum, count) => sum + count, 0);
    const evals = run.result.view.test_evals;
    const sizes: number[] = [];
    const listed: { runId: string }[] = [];
    for await (const execution of client.workflow.list({ query: `WorkflowId = '${loopWorkflowId(LOOP_ID)}'` }))
      listed.push({ runId: execution.runId });
    for (const { runId } of listed) {
      const description = await client.workflow.getHandle(loopWorkflowId(LOOP_ID), runId).describe();
      sizes.push(Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0));
    }
    const largestIndex = totals.indexOf(Math.max(...totals));
    const carry = Math.max(...chain.map(inputBytes));
    const perType = Object.fromEntries(
      [...eventTypeCounts(chain)].map(([type, count]) => [type, Number((count / Math.max(1, done)).toFixed(3))]),
    );
    const warnings = await server.historyWarnings();
    const extrapolated = !run.complete || done < options.historyRuns;
    const perRun = total / Math.max(1, done);

    // ---- section 4: replay in a fresh process with the real bundle ----
    const replayDir = path.join(server.dir, 'replay');
    await mkdir(replayDir, { recursive: true });
    const bundleFile = path.join(replayDir, 'workflow-bundle.js');
    await writeFile(bundleFile, ctx.bundle.code);
    const files: string[] = [];
    for (const [index, events] of chain.entries()) {
      const file = path.join(replayDir, `run-${String(index + 1).padStart(3, '0')}.history.pb`);
      await writeFile(file, proto.temporal.api.history.v1.History.encode({ events }).finish());
      files.push(file);
    }
    const largestFile = files[largestIndex] as string;
    const single = await replayInFreshProcess(bundleFile, [largestFile], true);
    const fit = lineFit(single.cuts.map((cut) => [cut.events, cut.replayMs]));
    const whole = await replayInFreshProcess(bundleFile, files);
    const replayMs = single.replays[0]?.replayMs ?? null;
    const chainMs = whole.replays.reduce((sum, r) => sum + r.replayMs, 0);

    const label = `${done}-run generation`;
    const { status: statusSummary, coldQueryMs, coldRunEvents } = measured;
    const figures: Figure[] = [
      figure(
        'history',
        `generation events per training run (bench stack, ${done} runs)`,
        perRun,
        '',
        { op: '<=', value: 8 },
        `${options.historyCandidates} candidates/round, ${ensembles} round ensembles included; per type in results`,
      ),
      figure(
        'history',
        'generation events per eval',
        evals > 0 ? total / evals : null,
        '',
        null,
        `${evals} test evals`,
      ),
      figure(
        'history',
        `generation events in all, ${label}`,
        total,
        '',
        null,
        `${chain.length} runs of the chain (continue-as-new suggested at ${options.historyCanEvents ?? '4,000'} events)`,
      ),
      ...(extrapolated
        ? [
            figure(
              'history',
              `EXTRAPOLATED events of a ${options.historyRuns}-run generation`,
              perRun * options.historyRuns,
              '',
              null,
              `from ${done} runs`,
            ),
          ]
        : []),
      figure('history', 'largest run of the chain: events', Math.max(...totals), ''),
      figure(
        'history',
        'largest run of the chain: history size',
        Math.max(...sizes, 0) / 2 ** 20,
        'MiB',
        { op: '<', value: 10 },
        'Temporal warns at 10 MB',
      ),
      figure(
        'history',
        'largest run input (the continue-as-new carry)',
        carry / 1024,
        'KiB',
        { op: '<', value: 512 },
        'Temporal warns at 512 KB per payload',
      ),
      // One eval per run (one checkpoint) and per ensemble; test_evals counts the ok ones.
      figure(
        'history',
        'evaluations without a report (bench stack)',
        Math.max(0, done + ensembles - evals),
        '',
        null,
        errors[0] ?? 'step log errors in the results file',
      ),
      figure(
        'history',
        'history/size warnings in the server log',
        warnings.length,
        '',
        { op: '<=', value: 0 },
        warnings[0]?.slice(0, 160) ?? null,
      ),
      figure(
        'history',
        run.complete ? `wall time, ${label}` : `wall time until the budget ran out (${run.doneAtStop} runs done then)`,
        wallMs / 1000,
        's',
        null,
        `${perMinute.toFixed(0)} runs/min on ${lanes.length} lanes`,
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
      ...(extrapolated
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
      figure(
        'replay',
        `replay of the largest run (${single.replays[0]?.events ?? '?'} events), fresh process`,
        replayMs,
        'ms',
        { op: '<', value: 2000 },
        'Worker.runReplayHistory, real bundle; excludes node/tsx start-up',
      ),
      figure(
        'replay',
        `replay of every run of the chain (${chain.length} runs)`,
        chainMs,
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
        coldQueryMs,
        'ms',
        null,
        coldRunEvents === null
          ? null
          : `the old worker shut down; the query goes to the new one, which replays the current run (${coldRunEvents} events) first`,
      ),
      figure(
        'client',
        `status round trip p50 (${statusSummary?.n ?? 0} calls, ${evals} evals)`,
        statusSummary?.p50 ?? null,
        'ms',
        { op: '<', value: 200 },
        `loopStatus: describe + state query; the loop ${run.complete ? 'idle, holding every eval' : 'still busy: the budget ran out'}`,
      ),
      figure('client', 'status round trip p95', statusSummary?.p95 ?? null, 'ms', { op: '<', value: 200 }),
      figure(
        'client',
        `status of the loop with no orchestrator to ask (${evals} evals, ${chain.length} runs in history)`,
        stopped.ms,
        'ms',
        { op: '<', value: 200 },
        `lastLoopState, median of 3: the newest generation and packaging runs folded (a stopped loop's status, in-process); the whole ledger export of the same loop, every run and the copy: ${wholeExport.ms.toFixed(0)} ms`,
      ),
    ];
    const typeWidth = Math.max(...Object.keys(perType).map((type) => type.length));
    const notes = [
      [
        `history: generation events per training run, by type (${done} runs, ${chain.length} run(s) of the chain)`,
        ...Object.entries(perType).map(([type, count]) => `${type.padEnd(typeWidth)}  ${count.toFixed(2)}`),
      ].join('\n'),
    ];
    return {
      figures,
      notes,
      details: {
        runsAsked: options.historyRuns,
        runsDone: done,
        roundEnsembles: ensembles,
        complete: run.complete,
        candidatesPerRound: options.historyCandidates,
        lanes: lanes.length,
        wallMs,
        runsDoneAtStop: run.doneAtStop,
        runsPerMinute: perMinute,
        cpuMsPerRun,
        chainRuns: chain.length,
        eventsPerChainRun: totals,
        historyBytesPerChainRun: sizes,
        largestInputBytes: carry,
        inputBytesPerChainRun: chain.map(inputBytes),
        suggestContinueAsNewAt: options.historyCanEvents ?? 'temporal-dev.yaml',
        eventsTotal: total,
        eventsPerRun: perRun,
        eventsPerRunByType: perType,
        activityFailures: activityFailures(chain),
        stepLogErrors: errors,
        testEvals: evals,
        serverHistoryWarnings: warnings.slice(0, 20),
        replay: { largest: single, chain: whole },
        coldTakeover: { firstQueryMs: coldQueryMs, currentRunEvents: coldRunEvents },
        statusMs: statusSummary,
        stoppedStatusMs: stopped.ms,
        wholeExportMs: wholeExport.ms,
      },
    };
  } finally {
    await takeover?.stop();
    await workers?.stop();
    await connection?.close();
    await server.dispose(options.keep);
  }
}
