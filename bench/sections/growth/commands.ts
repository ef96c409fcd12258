// The commands the growth bench times at each size, end to end (a `champion-loop` subprocess) and
// in-process (the same work without the CLI's start-up), on a loop whose history is gone and on a
// stopped one whose last run is still in history.
import { readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { execa } from 'execa';
import { exportLedger, lastLoopState } from '../../../src/client/ledger-export.js';
import { loopState } from '../../../src/client/loop-look.js';
import { renderStoppedState } from '../../../src/client/render-status.js';
import { loopReport } from '../../../src/client/report-command.js';
import type { LoopConfig } from '../../../src/config/loop-config.js';
import { PROJECT_ROOT } from '../../../src/devserver/project-root.js';
import { updatedTime } from '../../../src/ledger/from-ledger.js';
import { firstCarry, type GenerationCarry } from '../../../src/workflows/generation/carry.js';
import { loopWorkflowId } from '../../../src/workflows/ids.js';
import type { BenchServer } from '../../lib/server.js';
import { medianTime } from '../../lib/stats.js';
import type { SyntheticCopy } from './loop-copy.js';

/** Timed calls of each command per size (the median is the figure). */
const REPS = 3;
const BIN = path.join(PROJECT_ROOT, 'bin', 'champion-loop.js');
const NO_WORKER_QUEUE = 'bench-growth-no-worker';

/** The median of REPS timed calls, and the last call's value. */
const medianOf = <T>(body: () => Promise<T>) => medianTime(REPS, body);

/** Runs `champion-loop ARGS` against the bench's server; throws unless it exits 0. */
export type Cli = (args: readonly string[]) => Promise<void>;

export function serverCli(server: BenchServer): Cli {
  return async (args) => {
    const result = await execa(
      process.execPath,
      [BIN, ...args, '--address', server.address, '--namespace', server.namespace],
      { cwd: PROJECT_ROOT, reject: false, timeout: 300_000 },
    );
    if (result.exitCode !== 0)
      throw new Error(`champion-loop ${args.join(' ')} exited ${result.exitCode}: ${result.stderr.slice(-1500)}`);
  };
}

/** The CLI's fixed cost: node, tsx and the command's modules, no server round trip. */
export async function cliStartupMs(): Promise<number> {
  return (await medianOf(() => execa(process.execPath, [BIN, '--help'], { cwd: PROJECT_ROOT }))).ms;
}

/** `ledger` and `report` of a loop whose history is gone, end to end, and what they wrote. */
export interface GoneLoopCli {
  readonly ledgerMs: number;
  readonly reportMs: number;
  /** Lines of the exported ledger.jsonl. */
  readonly exported: number;
  /** The exported state.json's text. */
  readonly exportedState: string;
  readonly reportBytes: number;
}

/** Time `ledger --config` and `report --config` of loop `gone` (its copy in `file`'s state dir), writing under `dir`. */
export async function timeGoneLoopCli(cli: Cli, gone: string, file: string, dir: string): Promise<GoneLoopCli> {
  const out = path.join(dir, 'export');
  const ledger = await medianOf(() => cli(['ledger', gone, '--config', file, '--out', out, '--force']));
  const exported = (await readFile(path.join(out, 'ledger.jsonl'), 'utf8')).split('\n').filter(Boolean).length;
  const exportedState = await readFile(path.join(out, 'state.json'), 'utf8');
  const html = path.join(dir, 'report.html');
  const report = await medianOf(() => cli(['report', gone, '--config', file, '--out', html, '--force']));
  const reportBytes = (await stat(html)).size;
  return { ledgerMs: ledger.ms, reportMs: report.ms, exported, exportedState, reportBytes };
}

/** The same export and report in this process, the copy found through the loop's config. */
export async function timeGoneLoopInProcess(
  client: Client,
  gone: string,
  config: LoopConfig,
): Promise<{ ledgerMs: number; reportMs: number }> {
  const fallback = { stateDir: config.state_dir, config };
  const ledger = await medianOf(async () => {
    const exported = await exportLedger(client, gone, fallback);
    return exported.rows.map((row) => JSON.stringify(row)).join('\n').length;
  });
  const report = await medianOf(() => loopReport(client, gone, new Date(), fallback));
  return { ledgerMs: ledger.ms, reportMs: report.ms };
}

/**
 * Loop `kept` stopped with its last run still in history: a generation run carrying the copy's
 * folded state, started on a queue no worker polls and terminated at once.
 */
export async function startStoppedLoop(
  client: Client,
  kept: string,
  config: LoopConfig,
  copy: SyntheticCopy,
): Promise<void> {
  const carry: GenerationCarry = {
    ...firstCarry(config, updatedTime(copy.copyRows)),
    state: copy.folded,
    opening: null,
  };
  const handle = await client.workflow.start('generation', {
    workflowId: loopWorkflowId(kept),
    taskQueue: NO_WORKER_QUEUE,
    args: [{ loopId: kept, config, carry }],
  });
  await handle.terminate('bench: a stopped loop whose older runs are gone');
}

/** `status` of the stopped loop `kept`, end to end and in-process, and the in-process text. */
export async function timeStatus(
  cli: Cli,
  client: Client,
  kept: string,
): Promise<{ cliMs: number; inProcessMs: number; text: string }> {
  const statusCli = await medianOf(() => cli(['status', kept]));
  const statusIn = await medianOf(async () => {
    const status = await loopState(client, kept);
    if (status.kind === 'running') throw new Error(`loop ${kept} should have stopped`);
    // What `status` does for a loop that is not running: its last state from its newest runs.
    return renderStoppedState((await lastLoopState(client, kept)).state);
  });
  return { cliMs: statusCli.ms, inProcessMs: statusIn.ms, text: statusIn.value };
}
