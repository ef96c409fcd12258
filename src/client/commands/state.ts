// champion-loop state: one command of the CLI (src/client/main.ts adds them all).
import { Option, type Command } from 'commander';
import { readFile } from 'node:fs/promises';
import { stateFromLedger } from '../../ledger/from-ledger.js';
import { positive } from './shared.js';

/** `champion-loop state`. */
export function addStateCommand(program: Command): void {
  program
    .command('state')
    .description('print, as JSON, the state.json that a seed-format ledger.jsonl folds to')
    .requiredOption('--from-ledger <file>', 'a ledger.jsonl written by the Python loop or by `champion-loop ledger`')
    .option('--band-decisions', "compare champions on the reports' decided counts")
    .addOption(new Option('--max-reserve-checks <n>', 'reserve checks before the generation advances').default('3'))
    .addOption(new Option('--saturation-evals <n>', 'test evals between reserve checks').default('200'))
    .option('--state-dir <dir>', 'the state dir the split path is named under', 'artifacts/champion-loop')
    .action(
      async (options: {
        fromLedger: string;
        bandDecisions?: boolean;
        maxReserveChecks: string;
        saturationEvals: string;
        stateDir: string;
      }) => {
        const text = await readFile(options.fromLedger, 'utf8');
        const state = stateFromLedger(
          text,
          options.fromLedger,
          {
            mode: options.bandDecisions ? 'band-decisions' : 'default',
            maxReserveChecks: positive(options.maxReserveChecks, '--max-reserve-checks'),
            saturationEvals: positive(options.saturationEvals, '--saturation-evals'),
          },
          options.stateDir,
        );
        console.log(JSON.stringify(state, null, 2));
      },
    );
}
