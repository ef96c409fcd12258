import type { Client } from '@temporalio/client';
import { WorkflowNotFoundError } from '@temporalio/client';
import { moveAside } from '../activities/support/move-aside.js';
import type { LoopConfig } from '../config/loop-config.js';
import { loopWorkflowId } from '../workflows/ids.js';

/**
 * `start --fresh`: the loop's state dir (its ledger copy, configs, evals, splits) and runs root
 * move aside, never deleted, so generation 1 starts on empty folders. Refused while it runs.
 * Returns what moved where.
 */
export async function startOver(client: Client, loopId: string, config: LoopConfig): Promise<[string, string][]> {
  const running = await client.workflow
    .getHandle(loopWorkflowId(loopId))
    .describe()
    .then(
      (description) => description.status.name === 'RUNNING',
      (error: unknown) => {
        if (error instanceof WorkflowNotFoundError) return false;
        throw error;
      },
    );
  if (running)
    throw new Error(
      `loop '${loopId}' is running: stop it first ('champion-loop stop ${loopId}'), then start it with --fresh`,
    );
  const moved: [string, string][] = [];
  for (const folder of [config.state_dir, config.runs_root]) {
    const to = await moveAside(folder);
    if (to !== null) moved.push([folder, to]);
  }
  return moved;
}
