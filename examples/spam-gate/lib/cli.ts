import process from 'node:process';
import { UsageError } from './args.js';

/** Runs an entry script's main; any error exits 2 with one line (a bug also with its stack). */
export async function runMain(name: string, main: (argv: string[]) => Promise<void> | void): Promise<void> {
  try {
    await main(process.argv.slice(2));
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // A usage error is the caller's to fix; anything else is ours, so it keeps its stack.
    const detail = error instanceof UsageError || !(error instanceof Error) ? '' : `\n${error.stack ?? ''}`;
    process.stderr.write(`${name}: ${message}${detail}\n`);
    process.exitCode = 2;
  }
}
