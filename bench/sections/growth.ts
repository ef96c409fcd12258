// What a loop's ledger costs as it grows (issue #17 item 4): at 500, 5,000 and 50,000 evaluations,
// the `ledger` export, the `report` (time and HTML size), `status`, the keeper's write cost per
// row and the memory of a process holding the copy, each beside its growth between sizes measured
// in this run. The ledgers are synthetic but built through the loop's own folds
// (lib/synthetic-ledger.ts); the commands run as a long-lived loop's do once the history of its
// older runs is gone: the copy in its state dir holds the record.
//
// The steps, per size: the loop folder and its copy (growth/loop-copy.ts), the commands timed
// (growth/commands.ts), the keeper (growth/keeper.ts), the checks; then the figures
// (growth/figures.ts).
import path from 'node:path';
import { type BenchSession, withBenchSession } from '../lib/bench-session.js';
import type { BenchContext } from '../lib/context.js';
import type { Figure } from '../lib/figures.js';
import {
  cliStartupMs,
  serverCli,
  startStoppedLoop,
  timeGoneLoopCli,
  timeGoneLoopInProcess,
  timeStatus,
  type Cli,
  type GoneLoopCli,
} from './growth/commands.js';
import { growthFigures } from './growth/figures.js';
import { keeperChild, keeperPassMs, type KeeperChildOut } from './growth/keeper.js';
import { loopFolder, writeSyntheticCopy, type SyntheticCopy } from './growth/loop-copy.js';
import { BATCH, type SizeResult } from './growth/size-result.js';

type Log = (line: string) => void;

/** What one size measured, before it is put in a SizeResult. */
interface SizeMeasures {
  readonly size: number;
  readonly copy: SyntheticCopy;
  readonly gone: GoneLoopCli;
  readonly goneIn: { readonly ledgerMs: number; readonly reportMs: number };
  readonly status: { readonly cliMs: number; readonly inProcessMs: number; readonly text: string };
  readonly keeperOut: KeeperChildOut;
  readonly passMs: number;
}

export async function runGrowth(
  ctx: BenchContext,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const { log } = ctx;
  const results: SizeResult[] = [];
  let startupMs = 0;
  await withBenchSession(ctx, 'growth', {}, async (session) => {
    const cli = serverCli(session.server);
    startupMs = await cliStartupMs();
    log(`growth: champion-loop --help takes ${startupMs.toFixed(0)} ms (the CLI's start-up)`);
    for (const size of ctx.options.growthSizes) results.push(await measureSize(session, cli, size, log));
  });
  return { ...growthFigures(results, startupMs), details: { startupMs, sizes: results } };
}

/** One size: its loop and copy, the commands timed on it, the keeper, the checks. */
async function measureSize(session: BenchSession, cli: Cli, size: number, log: Log): Promise<SizeResult> {
  const { client } = session;
  const dir = path.join(session.server.dir, `loop-${size}`);
  const { file, config } = await loopFolder(dir);
  const copy = await writeSyntheticCopy(config, size, log);

  // A loop none of whose history is left: `--config` finds its copy, and the rows' fold is its state.
  const goneId = `growth-gone-${size}`;
  const gone = await timeGoneLoopCli(cli, goneId, file, dir);
  const goneIn = await timeGoneLoopInProcess(client, goneId, config);

  // A loop whose last run is still in history (stopped): what `status` reads (no --config there).
  const kept = `growth-${size}`;
  await startStoppedLoop(client, kept, config, copy);
  const status = await timeStatus(cli, client, kept);

  const keeperOut = await keeperChild(session.server, kept);
  const passMs = await keeperPassMs(config.state_dir, copy.tail);

  const measures: SizeMeasures = { size, copy, gone, goneIn, status, keeperOut, passMs };
  const result = sizeResult(measures, sizeChecks(measures, log));
  logSize(size, result, log);
  return result;
}

/** That the commands saw the copy whole: each check logged when it fails. */
function sizeChecks(m: SizeMeasures, log: Log): Record<string, boolean> {
  const { expectedState } = m.copy;
  const checks = {
    exportHoldsEveryRow: m.gone.exported === m.copy.copyRows.length,
    exportStateIsTheFold: JSON.stringify(JSON.parse(m.gone.exportedState)) === JSON.stringify(expectedState),
    keeperAppendedNothing: m.keeperOut.appended === 0,
    statusNamesTheChampion: expectedState.champion === null || m.status.text.includes(expectedState.champion.run_id),
  };
  for (const [name, ok] of Object.entries(checks)) if (!ok) log(`growth: check ${name} FAILED at ${m.size}`);
  return checks;
}

function sizeResult(m: SizeMeasures, checks: Record<string, boolean>): SizeResult {
  const { keeperOut } = m;
  const heldMiB =
    keeperOut.rssAfterMiB !== null && keeperOut.rssBeforeMiB !== null
      ? keeperOut.rssAfterMiB - keeperOut.rssBeforeMiB
      : null;
  return {
    size: m.copy.evals >= m.size ? m.size : m.copy.evals,
    rows: m.copy.copyRows.length,
    counts: m.copy.counts,
    copyBytes: m.copy.copyBytes,
    cli: { ledgerMs: m.gone.ledgerMs, reportMs: m.gone.reportMs, statusMs: m.status.cliMs },
    inProcess: { ledgerMs: m.goneIn.ledgerMs, reportMs: m.goneIn.reportMs, statusMs: m.status.inProcessMs },
    reportBytes: m.gone.reportBytes,
    keeper: {
      passMs: m.passMs,
      perRowMs: m.passMs / BATCH,
      startMs: keeperOut.firstPassMs,
      rssBeforeMiB: keeperOut.rssBeforeMiB,
      rssAfterMiB: keeperOut.rssAfterMiB,
      heldMiB,
      heapHeldMiB: keeperOut.heapAfterMiB - keeperOut.heapBeforeMiB,
    },
    checks,
  };
}

function logSize(size: number, r: SizeResult, log: Log): void {
  log(
    `growth: ${size}: ledger ${r.cli.ledgerMs.toFixed(0)} ms (in-process ${r.inProcess.ledgerMs.toFixed(0)}), report ${r.cli.reportMs.toFixed(0)} ms (${r.inProcess.reportMs.toFixed(0)}; ${(r.reportBytes / 1024).toFixed(0)} KiB), status ${r.cli.statusMs.toFixed(0)} ms (${r.inProcess.statusMs.toFixed(0)}), keeper ${(r.keeper.passMs / BATCH).toFixed(3)} ms/row, start ${r.keeper.startMs.toFixed(0)} ms, holds ${r.keeper.heldMiB?.toFixed(1) ?? 'n/a'} MiB`,
  );
}
