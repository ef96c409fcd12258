// champion-loop unpause: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import type { ConnectionFlags } from '../connect.js';
import { runTraining, unpauseTraining } from '../training-pause.js';
import { connectionOptions, withClient } from './shared.js';

/** `champion-loop unpause`. */
export function addUnpauseCommand(program: Command): void {
  connectionOptions(
    program
      .command('unpause')
      .description(
        'go on with a paused training: it runs again on its lane (from its newest checkpoint with loop.yaml resume_flag), at no cost in attempts',
      )
      .argument('<loop-id>')
      .argument('<run-id>', 'the run whose training `pause` paused'),
  ).action(async (loopId: string, runId: string, options: ConnectionFlags) => {
    const lane = await withClient(options, async (client) => {
      const training = await runTraining(client, loopId, runId);
      await unpauseTraining(client, training);
      return training.lane;
    });
    console.log(`loop ${loopId}: run ${runId}: training unpaused; it runs again on ${lane} once the lane takes it`);
  });
}
