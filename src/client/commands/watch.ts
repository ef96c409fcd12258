// champion-loop watch: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import type { ConnectionFlags } from '../connect.js';
import { watchLoop } from '../watch.js';
import { connectionOptions, withClient, positive } from './shared.js';

/** `champion-loop watch`. */
export function addWatchCommand(program: Command): void {
  connectionOptions(
    program
      .command('watch')
      .description(
        'follow a running loop: progress per lane, new champions, front changes, reserve checks, generations',
      )
      .argument('<loop-id>')
      .option('--interval <ms>', 'how often to look', '1000'),
  ).action(async (loopId: string, options: ConnectionFlags & { interval: string }) => {
    const abort = new AbortController();
    process.once('SIGINT', () => abort.abort());
    await withClient(options, (client) =>
      watchLoop(client, loopId, {
        out: process.stdout,
        intervalMs: positive(options.interval, '--interval'),
        signal: abort.signal,
      }),
    );
  });

  /** The flags `ledger` and `report` share. */
}
