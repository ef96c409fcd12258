// What a running loop says of itself (`status`, `watch`): its state query answered in time, and
// which of its task queues no worker polls.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { loopWorkflowId, packagingWorkflowId } from '../workflows/ids.js';
import type { LoopView } from '../workflows/loop-view.js';
import { stateQuery } from '../workflows/messages.js';
import { deadlinePassed } from './deadline.js';
import { NoSuchLoopError } from './no-such-loop.js';
import {
  configQueues,
  latestRunConfig,
  loopQueues,
  startInputOf,
  queuesWithoutPoller,
  type LoopQueue,
} from './pollers.js';
import { runsStartedActivity } from './busy-lanes.js';
import { statusInWords } from './status-words.js';
import { resumeCommand } from './loop-start.js';

/** The running loop's handle; a loop that is not running is a clear error. */
export async function runningLoop(client: Client, loopId: string) {
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  try {
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') {
      // The whole command: `start` needs the loop's loop.yaml, which history knows only by its folder.
      const input = await startInputOf(client, loopId, description.runId).catch(() => null);
      throw new Error(
        `loop '${loopId}' is not running (${description.status.name.toLowerCase()}); resume it with: ${resumeCommand(loopId, input?.config.workdir)}`,
      );
    }
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new NoSuchLoopError(loopId, loopWorkflowId(loopId));
    throw error;
  }
  return handle;
}

/** The live state of a running loop. */
export async function loopStatus(client: Client, loopId: string): Promise<LoopView> {
  return (await runningLoop(client, loopId)).query(stateQuery);
}

/**
 * A running loop as it looks now: its view (null when no orchestrator worker polls, so nobody
 * can answer) and the queues of the loop no worker polls (orchestrator, lanes, package).
 */
export interface LoopLook {
  readonly view: LoopView | null;
  readonly noPoller: LoopQueue[];
  /** Why the view is null although a worker polled the orchestrator queue lately (it died, or stalls). */
  readonly unanswered?: string;
}

/**
 * How long the state query may take. A live orchestrator answers in milliseconds; one killed a
 * moment ago still shows as a poller for a minute and more, and a query sent to it would wait
 * half a minute for the server to give up.
 */
const STATE_QUERY_DEADLINE_MS = 5_000;

async function lookAt(
  client: Client,
  loopId: string,
  handle: ReturnType<Client['workflow']['getHandle']>,
): Promise<LoopLook> {
  const config = await latestRunConfig(client, loopId);
  const orchestrator = loopQueues([], false);
  const unanswered = async (error: unknown, deadline?: number): Promise<LoopLook> => {
    const noPoller = await queuesWithoutPoller(client, config ? configQueues(config) : orchestrator);
    if ((await queuesWithoutPoller(client, orchestrator)).length > 0) return { view: null, noPoller };
    // A worker polled lately but nobody answered in time: the orchestrator died a moment ago, or stalls.
    if (deadline !== undefined && deadlinePassed(error, deadline))
      return {
        view: null,
        noPoller,
        unanswered: `no orchestrator worker answered its state query within ${STATE_QUERY_DEADLINE_MS / 1000} s (one polled its task queue lately: it may have died a moment ago, or be stalled)`,
      };
    throw error;
  };
  if ((await queuesWithoutPoller(client, orchestrator)).length > 0) return unanswered(new Error('no orchestrator'));
  let view: LoopView;
  const deadline = Date.now() + STATE_QUERY_DEADLINE_MS;
  try {
    view = await client.connection.withDeadline(deadline, () => handle.query(stateQuery));
  } catch (error) {
    return unanswered(error, deadline);
  }
  // A worker whose slots are all taken does not poll until one frees: a lane running as many jobs
  // as it has slots is not asked about while one of its jobs' activities is started and
  // heartbeating (a live worker runs it), nor the package worker while it runs a package.
  const packages = config ? config.commands.package !== null : false;
  const served = async (workflowIds: readonly string[]) =>
    (await Promise.all(workflowIds.map((id) => runsStartedActivity(client, id)))).some(Boolean);
  const lanes = await Promise.all(
    view.lanes.map(async (lane) =>
      lane.busy >= lane.slots &&
      (await served(view.in_flight.filter((flight) => flight.lane === lane.queue).map((flight) => flight.childId)))
        ? null
        : lane.queue,
    ),
  );
  const packaging = packages && (await served([packagingWorkflowId(loopId)]));
  return {
    view,
    noPoller: await queuesWithoutPoller(
      client,
      loopQueues(
        lanes.filter((queue) => queue !== null),
        packages && !packaging,
      ),
    ),
  };
}

/**
 * The generation a running loop is at now, for a command that names the one it means (advance);
 * undefined when nobody answers or it is not running (the command then says why, as before).
 */
export async function currentGeneration(client: Client, loopId: string): Promise<number | undefined> {
  try {
    const state = await loopState(client, loopId);
    return state.kind === 'running' && state.view !== null ? state.view.generation : undefined;
  } catch {
    return undefined;
  }
}

/** The live look at a running loop (see LoopLook); a loop that is not running is an error. */
export async function loopLook(client: Client, loopId: string): Promise<LoopLook> {
  return lookAt(client, loopId, await runningLoop(client, loopId));
}

/** A loop's live state while it runs (view null: no orchestrator worker polls); otherwise how its last run ended. */
export type LoopStatus =
  ({ readonly kind: 'running' } & LoopLook) | { readonly kind: 'not-running'; readonly ended: string };

export async function loopState(client: Client, loopId: string): Promise<LoopStatus> {
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new NoSuchLoopError(loopId, loopWorkflowId(loopId));
    throw error;
  }
  if (status !== 'RUNNING') return { kind: 'not-running', ended: `was ${statusInWords(status)}` };
  return { kind: 'running', ...(await lookAt(client, loopId, handle)) };
}
