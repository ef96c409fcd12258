import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import {
  CHAMPION_SIGNAL,
  PACKAGING_WORKFLOW,
  type PackagingInput,
  type PackagingWorkflow,
} from '../contract/packaging.js';
import { LOOP_ID, LOOP_KIND } from '../contract/search-attributes.js';
import { ORCHESTRATOR_QUEUE } from '../contract/task-queues.js';
import type { PackageChampion } from './types.js';

export interface PackagingRequest {
  readonly workflowId: string;
  readonly champion: PackageChampion;
  /** How to start the packaging workflow if it is not running yet. */
  readonly input: PackagingInput;
  /**
   * Only when someone ended the packaging workflow by hand (terminated, cancelled) or it failed:
   * what it held is lost, so the champion is handed to a new run. A running one, or one a stop
   * completed, is left alone (it has the champion, or the loop's resumption packages it).
   */
  readonly onlyIfEnded?: boolean;
}

/** How a packaging workflow can end without handing over what it held (by hand, or failing). */
export const PACKAGING_ENDED_BY_HAND: readonly string[] = ['TERMINATED', 'CANCELLED', 'FAILED', 'TIMED_OUT'];

/**
 * Hand a new champion to the loop's packaging workflow, starting it if needed. A retry after a
 * lost reply delivers the same champion twice; the packaging fold ignores the repeat. Says whether it was handed over.
 */
export function createRequestPackaging(client: Client) {
  return async function requestPackaging(request: PackagingRequest): Promise<boolean> {
    if (request.onlyIfEnded) {
      const status = await client.workflow
        .getHandle(request.workflowId)
        .describe()
        .then(
          (description) => description.status.name as string,
          (error: unknown) => {
            if (error instanceof WorkflowNotFoundError) return 'NONE';
            throw error;
          },
        );
      if (!PACKAGING_ENDED_BY_HAND.includes(status)) return false;
    }
    await client.workflow.signalWithStart<PackagingWorkflow, [PackageChampion]>(PACKAGING_WORKFLOW, {
      workflowId: request.workflowId,
      taskQueue: ORCHESTRATOR_QUEUE,
      args: [request.input],
      signal: CHAMPION_SIGNAL,
      signalArgs: [request.champion],
      typedSearchAttributes: [
        { key: LOOP_ID, value: request.input.loopId },
        { key: LOOP_KIND, value: 'packaging' },
      ],
      staticSummary: `packages the champions of loop ${request.input.loopId}, one at a time`,
    });
    return true;
  };
}
