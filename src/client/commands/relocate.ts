// champion-loop relocate: one command of the CLI (src/client/main.ts adds them all).
import type { Command } from 'commander';
import { loadLoopConfig } from '../../config/load-loop-config.js';
import type { ConnectionFlags } from '../connect.js';
import { endIdlePackaging } from '../packaging-control.js';
import { latestRunConfig } from '../pollers.js';
import { statusInWords } from '../status-words.js';
import { folderMoves, moveFolders } from '../relocation.js';
import { loopWorkflowId } from '../../workflows/ids.js';
import { connectionOptions, withClient } from './shared.js';

/** `champion-loop relocate`. */
export function addRelocateCommand(program: Command): void {
  connectionOptions(
    program
      .command('relocate')
      .description(
        "move a stopped loop's state dir and runs root to where its edited loop.yaml says (or take them where you moved them), so that 'start' resumes it there",
      )
      .argument('<loop-id>')
      .requiredOption(
        '-c, --config <loop.yaml>',
        'the loop settings, with state_dir and runs_root where the folders are to be',
      ),
  ).action(async (loopId: string, options: ConnectionFlags & { config: string }) => {
    const config = await loadLoopConfig(options.config);
    await withClient(options, async (client) => {
      const previous = await latestRunConfig(client, loopId);
      if (previous === null)
        throw new Error(
          `loop ${loopId} has no run in history: 'start' reads its ledger copy where ${options.config} says, so there is nothing to relocate`,
        );
      const status = (await client.workflow.getHandle(loopWorkflowId(loopId)).describe()).status.name;
      if (status === 'RUNNING')
        throw new Error(
          `loop ${loopId} is running: stop it first ('champion-loop stop ${loopId}'), then relocate it. Nothing moved.`,
        );
      // A loop terminated or cancelled may have children still running in the old folders.
      if (status !== 'COMPLETED')
        throw new Error(
          `loop ${loopId}'s last run was ${statusInWords(status)}: jobs of it may still run in the old folders. ` +
            `Start it ('champion-loop start ${loopId}' with the loop.yaml it ran with), stop it ('champion-loop stop ${loopId}'), then relocate it. Nothing moved.`,
        );
      const moves = folderMoves(previous, config);
      if (moves.length === 0) {
        console.log(`loop ${loopId}: ${options.config} names the folders its last run used; nothing to move`);
        return;
      }
      // An idle packaging workflow still holds the old paths: ended (nothing is lost), a new one starts with the next champion.
      await endIdlePackaging(client, loopId);
      for (const line of await moveFolders(loopId, moves, config.state_dir)) console.log(line);
      console.log(
        `loop ${loopId}: the move is recorded in ${config.state_dir}; resume it there with 'champion-loop start ${loopId} --config ${options.config}' ` +
          '(rows already in its ledger keep the paths they had)',
      );
    });
  });
}
