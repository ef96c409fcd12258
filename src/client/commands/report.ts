// champion-loop report: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ConnectionFlags } from '../connect.js';
import { checkNotInStateDir, checkOverwrite } from '../out-dir.js';
import { loopReport } from '../report-command.js';
import { connectionOptions, withClient, copyOf, type LedgerOutFlags } from './shared.js';

/** `champion-loop report`. */
export function addReportCommand(program: Command): void {
  connectionOptions(
    program
      .command('report')
      .description(
        "a self-contained HTML report of a loop's ledger: per generation the Pareto front plotted, the champion timeline, the reserve checks",
      )
      .argument('<loop-id>')
      .option(
        '-o, --out <file.html>',
        "where to write it (default: reports/<loop-id>.html beside the loop's state dir, never the current folder)",
      )
      .option('-c, --config <loop.yaml>', "the loop's settings: where its ledger copy is when no history of it is left")
      .option('--force', 'replace the file when it exists already')
      .option('--up-to-damage', 'with no history left and a damaged copy: report the rows before the damage'),
  ).action(async (loopId: string, options: ConnectionFlags & LedgerOutFlags) => {
    if (options.out !== undefined) await checkOverwrite([options.out], '--out', options.force === true);
    const fallback = options.config ? await copyOf(options.config) : undefined;
    const report = await withClient(options, (client) =>
      loopReport(client, loopId, new Date(), fallback, { upToDamage: options.upToDamage === true }),
    );
    // Not into the folder the command runs in (often a clone of this repository): beside the loop's own files.
    const out =
      options.out ??
      (report.stateDir === null
        ? `champion-loop-${loopId}.html`
        : path.join(path.dirname(report.stateDir), 'reports', `${loopId}.html`));
    if (options.out === undefined) await checkOverwrite([out], '--out', options.force === true);
    await checkNotInStateDir(path.dirname(path.resolve(out)), '--out', loopId, report.stateDir);
    if (report.note) console.warn(`note: ${report.note}`);
    await mkdir(path.dirname(path.resolve(out)), { recursive: true });
    await writeFile(out, report.html);
    console.log(
      `report of loop ${loopId}: ${report.generations} generation${report.generations === 1 ? '' : 's'}, ${report.testEvals} test evaluations -> ${out} (opens offline in any browser)`,
    );
  });
}
