// @ts-check
/** The common frame of every entry script: filler output first, errors to exit codes. */
import process from 'node:process';
import { UsageError } from './args.mjs';
import { emitMegabytes } from './faults.mjs';
import { traceStep } from './trace.mjs';

/**
 * Run a script's main; a bad input exits 2 with one line on stderr.
 * @param {string} name
 * @param {(argv: string[]) => Promise<void> | void} main
 */
export async function runMain(name, main) {
  const traced = traceStep(name, process.argv.slice(2));
  try {
    emitMegabytes();
    await main(process.argv.slice(2));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    const detail = error instanceof UsageError || !(error instanceof Error) ? '' : `\n${error.stack ?? ''}`;
    process.stderr.write(`${name}: ${message}${detail}\n`);
    process.exitCode = 2;
  } finally {
    traced();
  }
}
