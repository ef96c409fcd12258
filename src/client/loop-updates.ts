// Stopping and advancing a running loop, each as one update the workflow validates.
import {
  ServiceError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
} from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { openPayloads } from '../codec/decode-payloads.js';
import proto from '@temporalio/proto';
import type { GenerationInput } from '../workflows/generation.js';
import { loopWorkflowId } from '../workflows/ids.js';
import type { LoopView } from '../workflows/loop-view.js';
import { advanceUpdate, stopNowUpdate, stopUpdate, UPDATE_REFUSED } from '../workflows/messages.js';
import { runningLoop } from './loop-look.js';

/** A stop: at once (`now`, running jobs cancelled) or when the running jobs end. */
export interface StopLoop {
  readonly loopId: string;
  readonly now: boolean;
  /** How long to wait for the loop's orchestrator to answer (default UPDATE_DEADLINE_MS). */
  readonly deadlineMs?: number;
}

/** An advance: why, and the generation it advances from (refused once the loop is past it). */
export interface AdvanceLoop {
  readonly loopId: string;
  readonly reason: string;
  readonly deadlineMs?: number;
  readonly fromGeneration?: number | undefined;
  /** The generation was named by the operator (`--generation`), not read from the loop. */
  readonly named?: boolean;
}

/** What the workflow's validator says of an advance without a reason (generation/reports.ts). */
const ADVANCE_NEEDS_REASON = 'advance needs a reason (--reason), e.g. "corpus labels changed"';

/** How long a stop or advance waits for the loop's orchestrator worker to answer. */
const UPDATE_DEADLINE_MS = 30_000;

/**
 * Send a stop or advance as one update: the workflow's validator refuses it with its reason
 * (nothing changes) or it is applied and answers with the loop's view. A loop that does not
 * exist, is not running, or has no worker to answer is a clear error, found out only then.
 */
async function updateLoop(
  client: Client,
  loopId: string,
  what: string,
  send: (handle: ReturnType<Client['workflow']['getHandle']>) => Promise<LoopView>,
  deadlineMs = UPDATE_DEADLINE_MS,
  refusal?: () => string | null,
  retried = false,
): Promise<LoopView> {
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  try {
    return await client.withDeadline(Date.now() + deadlineMs, () => send(handle));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const { cause } = error;
      if (cause instanceof ApplicationFailure && cause.type === UPDATE_REFUSED) throw new Error(cause.message);
      // Not the validator: the update met the generation between two runs (a continue-as-new) and
      // was not applied. Once more, on the run that is current now.
      if (!retried) return updateLoop(client, loopId, what, send, deadlineMs, refusal, true);
      throw new Error(
        `could not ${what} loop '${loopId}': ${cause?.message ?? 'the server gave no reason'}; try again`,
      );
    }
    // The service refused the call itself: seen when the update meets the generation as it
    // continues as new. Once more, on the run that is current by then.
    if (error instanceof ServiceError && !retried) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return updateLoop(client, loopId, what, send, deadlineMs, refusal, true);
    }
    // No workflow validated it (no such loop, not running, nobody answering): a call that is wrong
    // in itself says so first.
    const wrong = refusal?.();
    if (wrong) throw new Error(wrong);
    // Not found, closed, or unanswered: say which.
    await runningLoop(client, loopId);
    if (!(await hasGeneration(client, loopId))) {
      throw new Error(
        `loop '${loopId}' has no generation to ${what} yet: no orchestrator worker has taken its first step (is 'champion-loop worker orchestrator' running?)`,
      );
    }
    if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
      throw new Error(
        `loop '${loopId}' did not answer the ${what} within ${deadlineMs / 1000}s (is 'champion-loop worker orchestrator' running?)`,
      );
    if (error instanceof ServiceError)
      throw new Error(`could not ${what} loop '${loopId}': ${error.cause?.message ?? error.message}; try again`);
    throw error;
  }
}

/** Stop a loop: gracefully (running work finishes) or at once (running work is cancelled, its subprocesses killed). */
export async function stopLoop(client: Client, { loopId, now, deadlineMs }: StopLoop): Promise<LoopView> {
  return updateLoop(
    client,
    loopId,
    'stop',
    (handle) => handle.executeUpdate(now ? stopNowUpdate : stopUpdate),
    deadlineMs,
  );
}

/**
 * Whether the loop's current run holds a generation: it took its first step (opening or carrying
 * one), or it continues a loop that had one. Before that an update would wait for a worker.
 */
async function hasGeneration(client: Client, loopId: string): Promise<boolean> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: loopWorkflowId(loopId) },
    maximumPageSize: 10,
  });
  const events = await openPayloads(client, history?.events ?? []);
  if (
    events.some((event) => event.eventType === proto.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
  )
    return true;
  const input = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const started = input ? defaultPayloadConverter.fromPayload<GenerationInput>(input) : undefined;
  return (started?.carry?.opening?.generation ?? started?.carry?.state.generation ?? 0) >= 1;
}

/**
 * Ask a loop to open its next generation, as one update: the workflow refuses an empty reason, a
 * loop with no generation yet and an advance already pending. Answers the view after the change
 * (its generation still the old one, `advance_reason` set: the next opens before any new job).
 */
export async function advanceLoop(
  client: Client,
  { loopId, reason, deadlineMs, fromGeneration, named = false }: AdvanceLoop,
): Promise<LoopView> {
  return updateLoop(
    client,
    loopId,
    'advance from',
    (handle) =>
      handle.executeUpdate(advanceUpdate, {
        args: fromGeneration === undefined ? [reason] : [reason, fromGeneration, named],
      }),
    deadlineMs,
    () => (reason.trim() === '' ? ADVANCE_NEEDS_REASON : null),
  );
}
