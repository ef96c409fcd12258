import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import type { LoopSynced } from '../ledger-copy/ledger-keeper.js';
import { loopWorkflowId } from '../workflows/ids.js';
import { stopUpdate } from '../workflows/messages.js';
import { stopFileExists, stopFilePath } from '../activities/support/paths.js';

// The seed stops gracefully when `<state_dir>/STOP` exists: it launches nothing new and exits
// once running work has finished. Operators' scripts use it, so the loop honours it: the
// orchestrator that keeps a loop's ledger copy looks for the file on every pass and, when it
// appears, asks the loop to stop as `champion-loop stop` does. Like the seed's, the file stays
// until someone deletes it, and `start` refuses to start the loop while it is there.

/** Looks for each loop's STOP file after each ledger-copy pass (the keeper's hook). */
export class StopFiles {
  /** Loops asked to stop for their STOP file, until the file is gone. */
  private readonly asked = new Set<string>();

  constructor(
    private readonly client: Client,
    private readonly log: (message: string) => void,
  ) {}

  async onSynced(synced: LoopSynced): Promise<void> {
    const { loopId, stateDir } = synced;
    if (!(await stopFileExists(stateDir))) {
      this.asked.delete(loopId);
      return;
    }
    if (this.asked.has(loopId)) return;
    this.asked.add(loopId);
    try {
      await this.client.workflow.getHandle(loopWorkflowId(loopId)).executeUpdate(stopUpdate);
      this.log(
        `loop ${loopId}: ${stopFilePath(stateDir)} found: stopping after running work finishes (as the seed's STOP file did); ` +
          'delete the file before the loop is started again',
      );
    } catch (error) {
      // Stopping already (a person's stop came first), or closed (the keeper's last pass over a
      // loop that ended): what the file asks for.
      if (error instanceof WorkflowNotFoundError || /already stopping|not running/.test(errorText(error))) return;
      this.asked.delete(loopId);
      this.log(`loop ${loopId}: ${stopFilePath(stateDir)} found, but the stop was not taken: ${errorText(error)}`);
    }
  }
}

function errorText(error: unknown): string {
  const cause = (error as { cause?: { message?: string } }).cause?.message;
  return `${(error as Error).message}${cause ? `: ${cause}` : ''}`;
}
