// champion-loop pause: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import type { ConnectionFlags } from '../connect.js';
import { pauseTraining, runTraining } from '../training-pause.js';
import { connectionOptions, withClient } from './shared.js';

/** `champion-loop pause`. */
export function addPauseCommand(program: Command): void {
  connectionOptions(
    program
      .command('pause')
      .description(
        "pause a run's training (Temporal's activity pause): its trainer is stopped (SIGTERM, its checkpoints kept), its lane slot freed, nothing recorded; `unpause` goes on",
      )
      .argument('<loop-id>')
      .argument('<run-id>', 'the run, as status and the ledger name it (e.g. g001-r0003-deep)')
      .option('--reason <text>', 'why, shown by status and the Web UI', 'paused with champion-loop pause'),
  ).action(async (loopId: string, runId: string, options: ConnectionFlags & { reason: string }) => {
    const training = await withClient(options, async (client) => {
      const found = await runTraining(client, loopId, runId);
      return { ...found, sent: await pauseTraining(client, found, options.reason) };
    });
    console.log(
      training.sent
        ? `loop ${loopId}: run ${runId}: training paused on ${training.lane} (${options.reason}); its trainer stops at its next heartbeat, and 'champion-loop unpause ${loopId} ${runId}' goes on`
        : `loop ${loopId}: run ${runId}: its training is paused already; 'champion-loop unpause ${loopId} ${runId}' goes on`,
    );
  });
}
