// champion-loop start: one command of the CLI (src/client/main.ts adds them all).
import type { Client } from '@temporalio/client';
import type { Command } from 'commander';
import type { LoopConfig } from '../../config/loop-config.js';
import { loadLoopConfig } from '../../config/load-loop-config.js';
import type { ConnectionFlags } from '../connect.js';
import { startOver } from '../start-over.js';
import { requireSearchAttributes } from '../namespace-check.js';
import { warnOnShortRetention } from '../retention.js';
import { registryWarning } from '../registry-check.js';
import { startLoop, type StartOutcome } from '../loop-start.js';
import { claimFolders } from '../../config/folder-owners.js';
import { checkFolderOwners } from '../folder-owner.js';
import { configQueues, describeNoPoller, latestRunConfig, queuesUnpolled } from '../pollers.js';
import { changedFields } from '../config-change.js';
import { folderMoves, recordedMoves, type FolderMove } from '../relocation.js';
import { loopWorkflowId } from '../../workflows/ids.js';
import { loadCandidates } from '../../config/load-candidates.js';
import { connectionOptions, withClient } from './shared.js';
import { definedFields } from '../../support/defined-fields.js';

const UNANSWERED_START =
  'an orchestrator worker polls, but none answered the start within 10 s (one died a moment ago, or it is busy): ' +
  "the loop is started and runs once an orchestrator takes it; 'champion-loop status' shows it";

/** `champion-loop start`. */
export function addStartCommand(program: Command): void {
  connectionOptions(
    program
      .command('start')
      .description(
        'start a loop (or report the one already running); a loop that ended in any way goes on where it was',
      )
      .argument('<loop-id>', 'the loop id, e.g. gate-2026')
      .requiredOption('-c, --config <loop.yaml>', 'the loop settings')
      .option(
        '--fresh',
        "start over at generation 1: the loop's state dir and runs root are moved aside first (never deleted)",
      )
      .option(
        '--from-seed-state-dir <dir>',
        "a new loop goes on from a Python seed loop: its state dir's ledger.jsonl (runs under the loop's runs_root)",
      ),
  ).action(
    async (
      loopId: string,
      options: ConnectionFlags & { config: string; fresh?: boolean; fromSeedStateDir?: string },
    ) => {
      if (options.fresh && options.fromSeedStateDir !== undefined)
        throw new Error(
          '--fresh and --from-seed-state-dir do not go together: a seed loop is carried over into a loop id with no history',
        );
      const config = await loadLoopConfig(options.config);
      // Refuse a broken candidates file now rather than in the workflow's first round.
      await loadCandidates(config.candidates, config.workdir);
      await withClient(options, async (client) => {
        const namespace = client.options.namespace;
        // A namespace without the loop's search attributes is named first, before anything is touched.
        await requireSearchAttributes(client);
        await checkFolderOwners(loopId, namespace, config, options.config);
        // The loop.yaml its latest run was started with: a stopped loop resumes only where its state is.
        const previous = options.fromSeedStateDir === undefined ? await latestRunConfig(client, loopId) : null;
        const relocation =
          previous && !options.fresh ? await relocationOf(client, loopId, options.config, previous, config) : [];
        if (options.fresh) {
          const moved = await startOver(client, loopId, config);
          for (const [from, to] of moved) console.log(`moved ${from} aside to ${to}`);
        }
        await warnOnShortRetention(client, (line) => console.warn(line));
        const registry = await registryWarning(config.mlflow);
        if (registry) console.warn(registry);
        const outcome = await startLoop(client, loopId, config, {
          fresh: options.fresh === true,
          relocation,
          ...definedFields({ seedStateDir: options.fromSeedStateDir }),
        });
        if (outcome.kind !== 'already-running') await claimFolders(loopId, namespace, config);
        reportStart(loopId, outcome, options.config, previous, config);
        for (const queue of await queuesUnpolled(client, configQueues(config), {
          onWait: (line) => console.log(`note: ${line}`),
        }))
          console.log(`note: ${describeNoPoller(queue)}`);
      });
    },
  );
}

/**
 * The folder moves a stopped loop resumes with: none while its state is where loop.yaml says (or
 * the loop runs); those `champion-loop relocate` recorded in the new state dir. Moves it did not
 * record are refused, naming the fields: resuming there would rebuild the split and lose the runs.
 */
async function relocationOf(
  client: Client,
  loopId: string,
  configPath: string,
  previous: LoopConfig,
  config: LoopConfig,
): Promise<FolderMove[]> {
  const moved = folderMoves(previous, config);
  if (
    moved.length === 0 ||
    (await client.workflow.getHandle(loopWorkflowId(loopId)).describe()).status.name === 'RUNNING'
  )
    return [];
  // Moved by `champion-loop relocate` (recorded in the new state dir): resumed there.
  if (!(await recordedMoves(config.state_dir, moved)))
    throw new Error(
      `loop ${loopId}'s state is in ${moved.map((move) => `${move.from} (${move.field})`).join(' and ')}, but ${configPath} now says ${moved.map((move) => `${move.field}: ${move.to}`).join(', ')}: ` +
        `resuming it there would rebuild its split and lose its runs. Put ${moved.map((move) => move.field).join(' and ')} back, ` +
        `move the folders there with 'champion-loop relocate ${loopId} --config ${configPath}', or start over there with --fresh. Nothing started.`,
    );
  return moved;
}

/**
 * Says what the start did: started (and whether an orchestrator answered, and a fresh start's
 * incarnation), resumed (where from, with its notes), or found running, naming the loop.yaml
 * fields that differ from those the running loop (`previous`) was started with and so were ignored.
 */
function reportStart(
  loopId: string,
  outcome: StartOutcome,
  configPath: string,
  previous: LoopConfig | null,
  config: LoopConfig,
): void {
  switch (outcome.kind) {
    case 'started':
      console.log(
        `started loop ${loopId} (workflow ${outcome.workflowId}); watch it with: champion-loop status ${loopId}`,
      );
      if (outcome.unanswered) console.log(`note: ${UNANSWERED_START}`);
      if (outcome.incarnation !== undefined)
        console.log(
          `note: a fresh start, the loop's incarnation ${outcome.incarnation}: its children's workflow ids carry /i${outcome.incarnation}, so none of the old loop's children is taken for one of its own`,
        );
      break;
    case 'resumed':
      console.log(
        `resumed loop ${loopId} in generation ${outcome.generation} from ${outcome.from} (workflow ${outcome.workflowId})`,
      );
      for (const note of outcome.notes ?? []) console.log(`note: ${note}`);
      if (outcome.unanswered) console.log(`note: ${UNANSWERED_START}`);
      break;
    case 'already-running': {
      console.log(
        `loop ${loopId} is already running (workflow ${outcome.workflowId}${outcome.view ? `, generation ${outcome.view.generation}, round ${outcome.view.round}` : ''}); nothing started`,
      );
      const changed = previous ? changedFields(previous, config) : [];
      if (changed.length > 0) {
        console.log(
          `note: ${configPath} differs from the loop.yaml the running loop was started with (${changed.join(', ')}); the edit was ignored. ` +
            `To apply it: 'champion-loop stop ${loopId}', wait until it has stopped, then 'champion-loop start ${loopId} --config ${configPath}'.`,
        );
      }
      break;
    }
  }
}
