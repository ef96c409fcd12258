// champion-loop stop: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import type { ConnectionFlags } from '../connect.js';
import { stopLoop } from '../loop-updates.js';
import { connectionOptions, withClient } from './shared.js';

/** `champion-loop stop`. */
export function addStopCommand(program: Command): void {
  connectionOptions(
    program
      .command('stop')
      .description('stop a loop: launch nothing new, let running work finish, then close')
      .argument('<loop-id>')
      .option('--now', 'stop at once: cancel running jobs and kill their subprocesses'),
  ).action(async (loopId: string, options: ConnectionFlags & { now?: boolean }) => {
    const view = await withClient(options, (client) => stopLoop(client, { loopId, now: options.now === true }));
    console.log(
      options.now
        ? `loop ${loopId}: generation ${view.generation}, round ${view.round}: stopping now (running jobs cancelled)`
        : `loop ${loopId}: generation ${view.generation}, round ${view.round}: stopping after running work finishes (${view.in_flight.length} running)`,
    );
  });
}
