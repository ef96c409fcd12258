// What a lane's worker tells the loops that use it: it drains (send it nothing new) or it is up.
// Told by signal to every running generation; a loop without the lane ignores it.
import type { Client } from '@temporalio/client';
import { laneDrainingSignal, type LaneDraining } from '../workflows/messages.js';
import { LOOP_KIND } from '../contract/search-attributes.js';

/** How long one drain notice keeps a loop's jobs away; the worker says it again every DRAIN_NOTICE_EVERY_MS. */
export const DRAIN_NOTICE_MS = 3 * 60_000;
export const DRAIN_NOTICE_EVERY_MS = 60_000;

/** Tells every running loop `notice`; a loop that closed meanwhile is passed over. Returns how many were told. */
export function tellLoops(client: Client, log: (message: string) => void): (notice: LaneDraining) => Promise<number> {
  return async (notice) => {
    let told = 0;
    const query = `${LOOP_KIND.name} = 'generation' AND ExecutionStatus = 'Running'`;
    try {
      for await (const loop of client.workflow.list({ query })) {
        try {
          await client.workflow.getHandle(loop.workflowId).signal(laneDrainingSignal, notice);
          told += 1;
        } catch {
          // Closed since it was listed: nothing to tell.
        }
      }
    } catch (error) {
      log(`could not tell the loops that ${notice.lane} ${notice.forMs > 0 ? 'drains' : 'is up'}: ${String(error)}`);
    }
    return told;
  };
}
