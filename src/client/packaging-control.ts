// A loop's packaging workflow as `status` and `start` see it: its view, how it ended, an upload
// waiting for the store.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { openPayloads } from '../codec/decode-payloads.js';
import { PACKAGING_ENDED_BY_HAND } from '../activities/request-packaging.js';
import { loopWorkflowId, packagingWorkflowId } from '../workflows/ids.js';
import type { PackageChampion } from '../activities/types.js';
import type { PackagingView } from '../workflows/packaging-view.js';
import { packagingQuery, stopNowSignal } from '../workflows/messages.js';
import { statusInWords } from './status-words.js';
import { uploadWaiting } from './step-waits.js';

/**
 * The packaging workflow's view of a loop (its running package and MLflow registrations), or null
 * when it is not running or does not answer within a few seconds: `status` does without it.
 */
export async function packagingView(client: Client, loopId: string): Promise<PackagingView | null> {
  try {
    return await client.withDeadline(Date.now() + 5_000, () =>
      client.workflow.getHandle(packagingWorkflowId(loopId)).query(packagingQuery),
    );
  } catch {
    return null;
  }
}

/**
 * Wait until the loop's packaging workflow has nothing running or queued (or does not run, or
 * does not answer): what stops its package worker (the demo's end) first lets a package finish
 * rather than kill it mid-way. Says once what it waits for; at `deadlineMs` it gives up and
 * returns the champion still packaging (null: settled).
 */
export async function packagingSettled(
  client: Client,
  loopId: string,
  { deadlineMs, say, intervalMs = 500 }: { deadlineMs: number; say: (line: string) => void; intervalMs?: number },
): Promise<PackageChampion | null> {
  let told = false;
  for (;;) {
    const view = await packagingView(client, loopId);
    const busy = view === null ? null : (view.running ?? view.queued);
    if (busy === null) return null;
    if (!told)
      say(
        `waiting for the package of generation ${busy.generation}'s champion ${busy.run_id} ${busy.checkpoint_name} ` +
          'to finish before stopping the workers',
      );
    told = true;
    if (Date.now() >= deadlineMs) return busy;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/**
 * End the loop's packaging workflow when it runs with nothing to do (a stopped loop leaves it so):
 * it holds the loop's old folders (`relocate`). One packaging or holding a champion is refused.
 */
export async function endIdlePackaging(client: Client, loopId: string): Promise<void> {
  const handle = client.workflow.getHandle(packagingWorkflowId(loopId));
  const running = await handle.describe().then(
    (description) => description.status.name === 'RUNNING',
    (error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    },
  );
  if (!running) return;
  const view = await packagingView(client, loopId);
  const busy = view === null ? null : (view.running ?? view.queued);
  if (view === null || busy !== null)
    throw new Error(
      `loop ${loopId}'s packaging workflow ${view === null ? 'does not answer' : `is packaging ${busy?.run_id ?? '?'}`}: ` +
        `wait until it has finished ('champion-loop status ${loopId}' shows it), then relocate. Nothing moved.`,
    );
  await handle.signal(stopNowSignal);
  await handle.result();
}

/**
 * What `status` says of the loop's packaging workflow, from one description of it:
 * - `ended`: why it is not running while the loop is, when someone ended it by hand (terminate,
 *   cancel) or it failed: what it was packaging or had queued waits for a `resume` signal (patch
 *   repackage-on-resume), a stop and start, or the next champion. Null when it runs, never
 *   started, or completed (a stop hands packaging over that way).
 * - `upload`: while the package step waits for the artifact store (loop.yaml artifacts:), what its
 *   last heartbeat said, e.g. the store refusing or not answering. Null otherwise.
 */
export async function packagingLines(
  client: Client,
  loopId: string,
): Promise<{ readonly ended: string | null; readonly upload: string | null }> {
  let description;
  try {
    description = await client.workflow.getHandle(packagingWorkflowId(loopId)).describe();
  } catch {
    return { ended: null, upload: null };
  }
  const status = description.status.name;
  const ended = PACKAGING_ENDED_BY_HAND.includes(status)
    ? `packaging: workflow ${packagingWorkflowId(loopId)} was ${statusInWords(status)}; the next champion starts it ` +
      'again. To package the champion now: temporal workflow signal --workflow-id ' +
      `${loopWorkflowId(loopId)} --name resume (or stop and start the loop)`
    : null;
  return { ended, upload: uploadWaiting(client, await openPayloads(client, description.raw.pendingActivities ?? [])) };
}
