import { Context } from '@temporalio/activity';
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { idlePackaging, type PackagingState } from '../ledger/packaging-fold.js';
import { isPackageChampion, STOP_NOW_SIGNAL } from '../contract/packaging.js';

export interface StopPackagingRequest {
  readonly workflowId: string;
}

/** A packaging workflow's result: what its stop at once left unpackaged (older code returned nothing). */
function leftOf(result: unknown): PackagingState {
  if (typeof result !== 'object' || result === null) return idlePackaging;
  const { running, queued } = result as Record<string, unknown>;
  return { running: isPackageChampion(running) ? running : null, queued: isPackageChampion(queued) ? queued : null };
}

/**
 * Stop the loop's packaging workflow at once (its running package command is killed) and return
 * the champions it left unpackaged: the one it was packaging and the one queued behind it. Nothing
 * when it is not running. A retry after the signal went in reads the result of the run it ended.
 */
export function createStopPackaging(client: Client) {
  return async function stopPackaging(request: StopPackagingRequest): Promise<PackagingState> {
    const handle = client.workflow.getHandle(request.workflowId);
    try {
      await handle.signal(STOP_NOW_SIGNAL);
    } catch (error) {
      if (!(error instanceof WorkflowNotFoundError)) throw error;
      const info = Context.current().info;
      if (info.attempt === 1) return idlePackaging;
      const description = await handle.describe().catch(() => null);
      const closed = description?.closeTime?.getTime() ?? 0;
      // Only a run this stop ended: an older one's result was carried by the stop that ended it.
      if (description?.status.name !== 'COMPLETED' || closed < info.scheduledTimestampMs) return idlePackaging;
    }
    return leftOf(await handle.result());
  };
}
