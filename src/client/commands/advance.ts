// champion-loop advance: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import type { ConnectionFlags } from '../connect.js';
import { advanceLoop } from '../loop-updates.js';
import { currentGeneration } from '../loop-look.js';
import { connectionOptions, withClient, positive } from './shared.js';

/** `champion-loop advance`. */
export function addAdvanceCommand(program: Command): void {
  connectionOptions(
    program
      .command('advance')
      .description('open the next generation before any new job (e.g. after the corpus labels changed)')
      .argument('<loop-id>')
      .requiredOption('--reason <text>', 'why, recorded in the generation row')
      .option(
        '--generation <n>',
        'the generation to advance (default: the one the loop is at now); refused once the loop is past it',
      ),
  ).action(async (loopId: string, options: ConnectionFlags & { reason: string; generation?: string }) => {
    const view = await withClient(options, async (client) => {
      // The generation this command means, so that sending it twice opens one generation, not two.
      const from =
        options.generation === undefined
          ? await currentGeneration(client, loopId)
          : positive(options.generation, '--generation');
      return advanceLoop(client, {
        loopId,
        reason: options.reason,
        fromGeneration: from,
        named: options.generation !== undefined,
      });
    });
    console.log(
      `loop ${loopId}: generation ${view.generation}, round ${view.round}: advancing to generation ${view.generation + 1} before any new job (${options.reason})`,
    );
  });
}
