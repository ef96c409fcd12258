// How a loop's workflow ended, for a client that waits on it (`npm run demo`): a terminate,
// cancel, failure or time-out from outside (the Web UI's buttons, `temporal workflow ...`) is an
// outcome to report in one line, never a WorkflowFailedError thrown at the user.
import { WorkflowFailedError, type Client } from '@temporalio/client';
import { CancelledFailure, TerminatedFailure, TimeoutFailure } from '@temporalio/common';
import type { GenerationResult } from '../workflows/generation.js';
import { loopWorkflowId } from '../workflows/ids.js';

/** How a loop's workflow closed other than by finishing its work. */
export type LoopEndedHow = 'terminated' | 'cancelled' | 'failed' | 'timed out' | 'stopped';

/** The loop's workflow completed with its result, or ended otherwise. */
export type LoopEnd =
  | { readonly kind: 'completed'; readonly result: GenerationResult }
  | { readonly kind: 'ended'; readonly how: LoopEndedHow; readonly reason?: string };

/** A closed workflow's status name (`describe()`) as a loop's end; null while it runs (or continued as new). */
export function endedByStatus(status: string): LoopEndedHow | null {
  switch (status) {
    case 'TERMINATED':
      return 'terminated';
    case 'CANCELLED':
      return 'cancelled';
    case 'FAILED':
      return 'failed';
    case 'TIMED_OUT':
      return 'timed out';
    // Completed without the caller asking for it: someone ran `champion-loop stop`.
    case 'COMPLETED':
      return 'stopped';
    default:
      return null;
  }
}

/** What `handle.result()` threw, as a loop's end; anything else (no server, ...) is not one. */
export function endedByError(error: unknown): Extract<LoopEnd, { kind: 'ended' }> | null {
  if (!(error instanceof WorkflowFailedError)) return null;
  const { cause } = error;
  if (cause instanceof TerminatedFailure) {
    // The SDK's own text when no reason was given says nothing more.
    const reason = cause.message && cause.message !== 'Workflow execution terminated' ? cause.message : undefined;
    return { kind: 'ended', how: 'terminated', ...(reason ? { reason } : {}) };
  }
  if (cause instanceof CancelledFailure) return { kind: 'ended', how: 'cancelled' };
  if (cause instanceof TimeoutFailure) return { kind: 'ended', how: 'timed out' };
  return { kind: 'ended', how: 'failed', ...(cause?.message ? { reason: cause.message } : {}) };
}

/** The loop's workflow now: null while it runs, else how its last run ended. */
export async function loopClosed(client: Client, loopId: string): Promise<Extract<LoopEnd, { kind: 'ended' }> | null> {
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  const how = endedByStatus((await handle.describe()).status.name);
  if (how === null) return null;
  if (how === 'stopped') return { kind: 'ended', how };
  // The closed run's result names the terminate reason or the failure.
  const end = await loopResult(client, loopId);
  return end.kind === 'ended' ? end : { kind: 'ended', how };
}

/** Wait for the loop's workflow to close (following continue-as-new); how it ended, never a WorkflowFailedError. */
export async function loopResult(client: Client, loopId: string): Promise<LoopEnd> {
  try {
    return {
      kind: 'completed',
      result: (await client.workflow.getHandle(loopWorkflowId(loopId)).result()) as GenerationResult,
    };
  } catch (error) {
    const ended = endedByError(error);
    if (ended === null) throw error;
    return ended;
  }
}

/** One line for a loop that ended under a client waiting on it: what happened and how to go on. */
export function loopEndedLine(loopId: string, end: Extract<LoopEnd, { kind: 'ended' }>, goOn: string): string {
  return `loop ${loopId} (workflow ${loopWorkflowId(loopId)}) was ${end.how} before its generation turned over${end.reason ? ` (reason: ${end.reason})` : ''}; ${goOn}`;
}
