// champion-loop ledger: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ConnectionFlags } from '../connect.js';
import { exportLedger, ledgerSources } from '../ledger-export.js';
import { checkNotInStateDir, checkOutDir, checkOverwrite, makeOutDir } from '../out-dir.js';
import { connectionOptions, withClient, copyOf, type LedgerOutFlags } from './shared.js';

/** `champion-loop ledger`. */
export function addLedgerCommand(program: Command): void {
  connectionOptions(
    program
      .command('ledger')
      .description(
        "export a loop's ledger.jsonl and state.json (the seed's formats): Temporal history, and the copy in its state dir for what history no longer holds",
      )
      .argument('<loop-id>')
      .option('-o, --out <dir>', 'write ledger.jsonl and state.json into this folder (default: ledger.jsonl to stdout)')
      .option('-c, --config <loop.yaml>', "the loop's settings: where its copy is when no history of it is left")
      .option('--force', 'replace ledger.jsonl and state.json when --out holds them already')
      .option('--up-to-damage', 'with no history left and a damaged copy: export the rows before the damage'),
  ).action(async (loopId: string, options: ConnectionFlags & LedgerOutFlags) => {
    // A folder that cannot be written, or files it would replace, are said before the export.
    const files = options.out ? [path.join(options.out, 'ledger.jsonl'), path.join(options.out, 'state.json')] : [];
    if (options.out) {
      await checkOutDir(options.out);
      await checkOverwrite(files, '--out', options.force === true);
    }
    const fallback = options.config ? await copyOf(options.config) : undefined;
    const ledger = await withClient(options, (client) =>
      exportLedger(client, loopId, fallback, { upToDamage: options.upToDamage === true }),
    );
    if (options.out) await checkNotInStateDir(options.out, '--out', loopId, ledger.stateDir);
    const note = ledgerSources(ledger);
    if (note) console.warn(`note: ${note}`);
    const { rows, state } = ledger;
    const jsonl = rows.map((row) => JSON.stringify(row)).join('\n') + (rows.length > 0 ? '\n' : '');
    if (!options.out) {
      process.stdout.write(jsonl);
      return;
    }
    await makeOutDir(options.out);
    await writeFile(path.join(options.out, 'ledger.jsonl'), jsonl);
    await writeFile(path.join(options.out, 'state.json'), `${JSON.stringify(state, null, 2)}\n`);
    console.log(
      `${rows.length} rows -> ${path.join(options.out, 'ledger.jsonl')}; state -> ${path.join(options.out, 'state.json')}`,
    );
  });
}
