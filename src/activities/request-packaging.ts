import type { Client } from '@temporalio/client';
import { championSignal } from '../workflows/messages.js';
import { packaging, type PackagingInput } from '../workflows/packaging.js';
import { ORCHESTRATOR_QUEUE } from '../workflows/queues.js';
import { LOOP_ID, LOOP_KIND } from '../workflows/search-attributes.js';
import type { PackageChampion } from './types.js';

export interface PackagingRequest {
  readonly workflowId: string;
  readonly champion: PackageChampion;
  /** How to start the packaging workflow if it is not running yet. */
  readonly input: PackagingInput;
}

/**
 * Hand a new champion to the loop's packaging workflow, starting it if needed. A retry after a
 * lost reply delivers the same champion twice; the packaging fold ignores the repeat.
 */
export function createRequestPackaging(client: Client) {
  return async function requestPackaging(request: PackagingRequest): Promise<void> {
    await client.workflow.signalWithStart(packaging, {
      workflowId: request.workflowId,
      taskQueue: ORCHESTRATOR_QUEUE,
      args: [request.input],
      signal: championSignal,
      signalArgs: [request.champion],
      typedSearchAttributes: [
        { key: LOOP_ID, value: request.input.loopId },
        { key: LOOP_KIND, value: 'packaging' },
      ],
      staticSummary: `packages the champions of loop ${request.input.loopId}, one at a time`,
    });
  };
}
