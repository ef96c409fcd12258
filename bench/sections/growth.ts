// What a loop's ledger costs as it grows (issue #17 item 4): at 500, 5,000 and 50,000 evaluations,
// the `ledger` export, the `report` (time and HTML size), `status`, the keeper's write cost per
// row and the memory of a process holding the copy, each beside its growth between sizes measured
// in this run. The ledgers are synthetic but built through the loop's own folds
// (lib/synthetic-ledger.ts); the commands run as a long-lived loop's do once the history of its
// older runs is gone: the copy in its state dir holds the record.
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { execa } from 'execa';
import { stringify } from 'yaml';
import { connectClient } from '../../src/client/connect.js';
import { exportLedger, lastLoopState } from '../../src/client/ledger-export.js';
import { loopState } from '../../src/client/loop-control.js';
import { renderStoppedState } from '../../src/client/render-status.js';
import { loopReport } from '../../src/client/report-command.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import { foldRows, updatedTime } from '../../src/ledger/from-ledger.js';
import { foldSettingsOf, stateJson } from '../../src/ledger/loop-state.js';
import { appendLedgerRows, writeStateCopy } from '../../src/ledger-copy/copy-files.js';
import { heldRows, rowsAfter, type CheckedHistory } from '../../src/ledger-copy/copy-check.js';
import { firstCarry, type GenerationCarry } from '../../src/workflows/generation/carry.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import type { BenchContext } from '../lib/context.js';
import { figure, type Figure, type Goal } from '../lib/figures.js';
import { describeGrowth, growthBetween, growthWords, type Growth } from '../lib/growth-ratios.js';
import { startBenchServer } from '../lib/server.js';
import { medianTime, percentile, timed } from '../lib/stats.js';
import { rowsThroughEvals, syntheticLedger } from '../lib/synthetic-ledger.js';

/** Evaluations past the copy: the rows the keeper appends in its steady passes. */
const TAIL_EVALS = 300;
/** Rows a keeper pass appends in steady state (a few reports' worth), and how many passes. */
const BATCH = 20;
const PASSES = 15;
/** Timed calls of each command per size (the median is the figure). */
const REPS = 3;
const BIN = path.join(PROJECT_ROOT, 'bin', 'champion-loop.js');
const NO_WORKER_QUEUE = 'bench-growth-no-worker';

interface SizeResult {
  readonly size: number;
  readonly rows: number;
  readonly counts: Readonly<Record<string, number>>;
  readonly copyBytes: number;
  readonly cli: { readonly ledgerMs: number; readonly reportMs: number; readonly statusMs: number };
  readonly inProcess: { readonly ledgerMs: number; readonly reportMs: number; readonly statusMs: number };
  readonly reportBytes: number;
  readonly keeper: {
    readonly passMs: number;
    readonly perRowMs: number;
    readonly startMs: number;
    readonly rssBeforeMiB: number | null;
    readonly rssAfterMiB: number | null;
    readonly heldMiB: number | null;
    readonly heapHeldMiB: number;
  };
  readonly checks: Readonly<Record<string, boolean>>;
}

/** The median of REPS timed calls, and the last call's value. */
const medianOf = <T>(body: () => Promise<T>) => medianTime(REPS, body);

/** A loop folder as `champion-loop start` would be given: loop.yaml and an (empty) candidates file. */
async function loopFolder(dir: string): Promise<{ file: string; config: LoopConfig }> {
  await mkdir(path.join(dir, 'data'), { recursive: true });
  await writeFile(path.join(dir, 'candidates.yaml'), stringify({ candidates: [] }));
  const file = path.join(dir, 'loop.yaml');
  const stub = ['/bin/true'];
  await writeFile(
    file,
    stringify({
      data_root: 'data',
      candidates: 'candidates.yaml',
      state_dir: 'state',
      runs_root: 'runs',
      parallel: 8,
      saturation_evals: 200,
      max_reserve_checks: 3,
      min_free_gib: 0,
      lanes: [{ host: 'bench', device: 0, slots: 1 }],
      commands: {
        train: stub,
        evaluate: stub,
        evaluate_ensemble: stub,
        split_generate: stub,
        split_carve: stub,
        teacher_scores: stub,
        package: stub,
      },
    }),
  );
  return { file, config: await loadLoopConfig(file) };
}

export async function runGrowth(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const { log } = ctx;
  const server = await startBenchServer(ctx.cli, 'growth');
  let connection: Connection | undefined;
  const results: SizeResult[] = [];
  let startupMs = 0;
  try {
    const connected = await connectClient({ address: server.address, namespace: server.namespace });
    connection = connected.connection;
    const client: Client = connected.client;
    const cli = (args: readonly string[]) =>
      execa(process.execPath, [BIN, ...args, '--address', server.address, '--namespace', server.namespace], {
        cwd: PROJECT_ROOT,
        reject: false,
        timeout: 300_000,
      });
    const cliOk = async (args: readonly string[]) => {
      const result = await cli(args);
      if (result.exitCode !== 0)
        throw new Error(`champion-loop ${args.join(' ')} exited ${result.exitCode}: ${result.stderr.slice(-1500)}`);
      return result;
    };
    // The CLI's fixed cost: node, tsx and the command's modules, no server round trip.
    startupMs = (await medianOf(() => execa(process.execPath, [BIN, '--help'], { cwd: PROJECT_ROOT }))).ms;
    log(`growth: champion-loop --help takes ${startupMs.toFixed(0)} ms (the CLI's start-up)`);

    for (const size of ctx.options.growthSizes) {
      const dir = path.join(server.dir, `loop-${size}`);
      const { file, config } = await loopFolder(dir);
      const settings = foldSettingsOf(config);
      const made = await timed(() =>
        Promise.resolve(
          syntheticLedger({
            evals: size + TAIL_EVALS,
            seed: 17,
            stateDir: config.state_dir,
            runsRoot: config.runs_root,
            settings,
            baseSeed: config.base_seed,
          }),
        ),
      );
      const split = rowsThroughEvals(made.value.rows, size);
      const copyRows = made.value.rows.slice(0, split);
      const tail = made.value.rows.slice(split);
      const folded = foldRows(copyRows, settings);
      const expectedState = stateJson(folded, config.state_dir, updatedTime(copyRows));
      await appendLedgerRows(config.state_dir, copyRows);
      await writeStateCopy(config.state_dir, expectedState);
      const copyBytes = (await stat(path.join(config.state_dir, 'ledger.jsonl'))).size;
      const counts: Record<string, number> = {};
      for (const row of copyRows) counts[row.type] = (counts[row.type] ?? 0) + 1;
      log(
        `growth: ${size} evaluations: ${copyRows.length} rows (${(copyBytes / 2 ** 20).toFixed(1)} MiB) built in ${made.ms.toFixed(0)} ms`,
      );

      // A loop none of whose history is left: `--config` finds its copy, and the rows' fold is its state.
      const gone = `growth-gone-${size}`;
      const out = path.join(dir, 'export');
      const ledgerCli = await medianOf(() => cliOk(['ledger', gone, '--config', file, '--out', out, '--force']));
      const exported = (await readFile(path.join(out, 'ledger.jsonl'), 'utf8')).split('\n').filter(Boolean).length;
      const exportedState = await readFile(path.join(out, 'state.json'), 'utf8');
      const html = path.join(dir, 'report.html');
      const reportCli = await medianOf(() => cliOk(['report', gone, '--config', file, '--out', html, '--force']));
      const reportBytes = (await stat(html)).size;
      const fallback = { stateDir: config.state_dir, config };
      const ledgerIn = await medianOf(async () => {
        const ledger = await exportLedger(client, gone, fallback);
        return ledger.rows.map((row) => JSON.stringify(row)).join('\n').length;
      });
      const reportIn = await medianOf(() => loopReport(client, gone, new Date(), fallback));

      // A loop whose last run is still in history (stopped): what `status` reads (no --config there).
      const kept = `growth-${size}`;
      const carry: GenerationCarry = { ...firstCarry(config, updatedTime(copyRows)), state: folded, opening: null };
      const handle = await client.workflow.start('generation', {
        workflowId: loopWorkflowId(kept),
        taskQueue: NO_WORKER_QUEUE,
        args: [{ loopId: kept, config, carry }],
      });
      await handle.terminate('bench: a stopped loop whose older runs are gone');
      const statusCli = await medianOf(() => cliOk(['status', kept]));
      const statusIn = await medianOf(async () => {
        const status = await loopState(client, kept);
        if (status.kind === 'running') throw new Error(`loop ${kept} should have stopped`);
        // What `status` does for a loop that is not running: its last state from its newest runs.
        return renderStoppedState((await lastLoopState(client, kept)).state);
      });

      // The orchestrator's keeper in a process of its own: start (read and index the copy), its memory.
      const child = await execa(
        process.execPath,
        [
          '--expose-gc',
          '--import',
          'tsx',
          path.join(PROJECT_ROOT, 'bench', 'lib', 'keeper-child.ts'),
          server.address,
          server.namespace,
          kept,
        ],
        { cwd: PROJECT_ROOT, reject: false, timeout: 300_000 },
      );
      if (child.exitCode !== 0) throw new Error(`keeper child exited ${child.exitCode}: ${child.stderr.slice(-1500)}`);
      const keeperOut = JSON.parse(child.stdout.trim().split('\n').pop() ?? '{}') as {
        appended: number;
        firstPassMs: number;
        rssBeforeMiB: number | null;
        rssAfterMiB: number | null;
        heapBeforeMiB: number;
        heapAfterMiB: number;
      };

      // The keeper's steady pass, in-process: history grew by a batch; the rows past those the copy holds are appended flushed.
      let held = { generation: 0, packaging: 0 };
      const passes: number[] = [];
      for (let pass = 0; pass < PASSES; pass += 1) {
        const history: CheckedHistory = {
          generation: { rows: tail.slice(0, (pass + 1) * BATCH), abandoned: [] },
          packaging: { rows: [], abandoned: [] },
        };
        const { ms } = await timed(async () => {
          await appendLedgerRows(config.state_dir, rowsAfter(history, held));
          held = heldRows(history);
        });
        passes.push(ms);
      }
      const passMs = percentile(passes, 50);

      const checks = {
        exportHoldsEveryRow: exported === copyRows.length,
        exportStateIsTheFold: JSON.stringify(JSON.parse(exportedState)) === JSON.stringify(expectedState),
        keeperAppendedNothing: keeperOut.appended === 0,
        statusNamesTheChampion:
          expectedState.champion === null || statusIn.value.includes(expectedState.champion.run_id),
      };
      for (const [name, ok] of Object.entries(checks)) if (!ok) log(`growth: check ${name} FAILED at ${size}`);
      const heldMiB =
        keeperOut.rssAfterMiB !== null && keeperOut.rssBeforeMiB !== null
          ? keeperOut.rssAfterMiB - keeperOut.rssBeforeMiB
          : null;
      results.push({
        size: made.value.evals >= size ? size : made.value.evals,
        rows: copyRows.length,
        counts,
        copyBytes,
        cli: { ledgerMs: ledgerCli.ms, reportMs: reportCli.ms, statusMs: statusCli.ms },
        inProcess: { ledgerMs: ledgerIn.ms, reportMs: reportIn.ms, statusMs: statusIn.ms },
        reportBytes,
        keeper: {
          passMs,
          perRowMs: passMs / BATCH,
          startMs: keeperOut.firstPassMs,
          rssBeforeMiB: keeperOut.rssBeforeMiB,
          rssAfterMiB: keeperOut.rssAfterMiB,
          heldMiB,
          heapHeldMiB: keeperOut.heapAfterMiB - keeperOut.heapBeforeMiB,
        },
        checks,
      });
      log(
        `growth: ${size}: ledger ${ledgerCli.ms.toFixed(0)} ms (in-process ${ledgerIn.ms.toFixed(0)}), report ${reportCli.ms.toFixed(0)} ms (${reportIn.ms.toFixed(0)}; ${(reportBytes / 1024).toFixed(0)} KiB), status ${statusCli.ms.toFixed(0)} ms (${statusIn.ms.toFixed(0)}), keeper ${(passMs / BATCH).toFixed(3)} ms/row, start ${keeperOut.firstPassMs.toFixed(0)} ms, holds ${heldMiB?.toFixed(1) ?? 'n/a'} MiB`,
      );
    }
  } finally {
    await connection?.close();
    await server.dispose(ctx.options.keep);
  }
  return { ...growthFigures(results, startupMs), details: { startupMs, sizes: results } };
}

interface Metric {
  readonly name: string;
  readonly unit: string;
  readonly value: (result: SizeResult) => number | null;
  /** What the figure measures (its note). */
  readonly what: string;
  /**
   * A goal on the growth between the two largest sizes: linear (no more than the sizes' ratio,
   * 10x from 5,000 to 50,000), flat (at most 2x: it costs what is new, not the ledger), or none.
   */
  readonly growthGoal: 'linear' | 'flat' | null;
  /** A goal on the figure at 50,000, or none. */
  readonly goalAtLargest?: Goal;
}

const METRICS: readonly Metric[] = [
  {
    name: '`champion-loop ledger --config --out`, end to end',
    unit: 'ms',
    value: (r) => r.cli.ledgerMs,
    what: 'a subprocess: the CLI starts, reads the copy, finds no history, folds the rows, writes ledger.jsonl and state.json',
    growthGoal: 'linear',
  },
  {
    name: 'ledger export in-process (exportLedger + the JSONL text)',
    unit: 'ms',
    value: (r) => r.inProcess.ledgerMs,
    what: 'the same work without the CLI start-up',
    growthGoal: 'linear',
  },
  {
    name: '`champion-loop report --config --out`, end to end',
    unit: 'ms',
    value: (r) => r.cli.reportMs,
    what: 'a subprocess: the export, then the HTML rendered and written',
    growthGoal: 'linear',
  },
  {
    name: 'report in-process (loopReport)',
    unit: 'ms',
    value: (r) => r.inProcess.reportMs,
    what: 'the same work without the CLI start-up',
    growthGoal: 'linear',
  },
  {
    name: 'report HTML size',
    unit: 'KiB',
    value: (r) => r.reportBytes / 1024,
    what: 'the self-contained file the report writes',
    growthGoal: 'linear',
  },
  {
    name: '`champion-loop status` of a stopped loop, end to end',
    unit: 'ms',
    value: (r) => r.cli.statusMs,
    what: 'a subprocess: describe, then the last state its newest run in history holds (the copy only once no run of it is left)',
    growthGoal: 'linear',
  },
  {
    name: 'status of a stopped loop in-process (loopState + lastLoopState + render)',
    unit: 'ms',
    value: (r) => r.inProcess.statusMs,
    what: "what `status` does without the CLI start-up (a running loop's status is a state query instead, whatever the ledger)",
    growthGoal: 'linear',
    goalAtLargest: { op: '<', value: 200 },
  },
  {
    name: 'keeper write cost per row (rows past the held ones + flushed append)',
    unit: 'ms',
    value: (r) => r.keeper.perRowMs,
    what: `a steady pass: ${BATCH} new rows past those the copy holds, appended with one fsync, median of ${PASSES}`,
    growthGoal: 'flat',
  },
  {
    name: "keeper's first pass over the loop (a worker's start)",
    unit: 'ms',
    value: (r) => r.keeper.startMs,
    what: 'in a fresh process: history read, the copy read whole and indexed, state.json written',
    growthGoal: 'linear',
  },
  {
    name: 'RSS a keeper process holds for the copy',
    unit: 'MiB',
    value: (r) => r.keeper.heldMiB,
    what: 'VmRSS after its passes minus before them, each after a full GC: the index (a digest per row) and what the heap kept',
    growthGoal: null,
  },
  {
    name: 'RSS of that keeper process',
    unit: 'MiB',
    value: (r) => r.keeper.rssAfterMiB,
    what: 'the whole process (node, tsx, the client) after its passes',
    growthGoal: null,
  },
  {
    name: 'ledger copy on disk',
    unit: 'MiB',
    value: (r) => r.copyBytes / 2 ** 20,
    what: 'ledger.jsonl in the state dir',
    growthGoal: null,
  },
];

/** The figures of a growth run: each metric per size, then its growth between sizes. Pure. */
function growthFigures(results: readonly SizeResult[], startupMs: number): { figures: Figure[]; notes: string[] } {
  const figures: Figure[] = [
    figure(
      'growth',
      '`champion-loop --help`, end to end (the CLI start-up in every command below)',
      startupMs,
      'ms',
      null,
      'node, tsx and the modules; the end-to-end ratios include this fixed cost',
    ),
  ];
  const worse: string[] = [];
  const n = (size: number) => size.toLocaleString('en-US');
  for (const metric of METRICS) {
    const points = results
      .map((r) => ({ size: r.size, value: metric.value(r) }))
      .filter((p): p is { size: number; value: number } => p.value !== null && Number.isFinite(p.value));
    const growths: Growth[] = growthBetween(points);
    const largest = points[points.length - 1];
    for (const point of points) {
      const goal = point === largest ? (metric.goalAtLargest ?? null) : null;
      figures.push(figure('growth', `${metric.name} at ${n(point.size)} evals`, point.value, metric.unit, goal));
    }
    const last = growths[growths.length - 1];
    figures.push(
      figure(
        'growth',
        `${metric.name}: growth ${last ? `${n(last.from)} -> ${n(last.to)}` : ''}`,
        last?.ratio ?? null,
        'x',
        !last || metric.growthGoal === null
          ? null
          : { op: '<=', value: metric.growthGoal === 'flat' ? 2 : Number(last.sizeRatio.toFixed(2)) },
        `${describeGrowth(growths)}; ${metric.what}`,
      ),
    );
    for (const g of growths)
      if (growthWords(g) === 'worse than linear')
        worse.push(
          `${metric.name}: ${n(g.to)}/${n(g.from)} ${g.ratio.toFixed(2)}x for ${g.sizeRatio.toFixed(1)}x evals`,
        );
  }
  const notes =
    worse.length > 0
      ? [`growth: worse than linear (beyond 25% slack) in this run:\n  ${worse.join('\n  ')}`]
      : ['growth: every figure grew linearly or better between the sizes measured.'];
  return { figures, notes };
}
