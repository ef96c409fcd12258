// A worker whose every slot runs a job does not poll its task queue, so Temporal's poller list
// goes stale for it: without more, `status` would say "no worker polls" a lane busy with other
// loops' jobs, and its advice would start a second worker on the same device. Workers report their
// slots to the server (worker heartbeats, temporal-dev.yaml); a queue whose live workers have
// every slot taken is busy, not unserved, and the running loops' own views say whose jobs hold it.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import { stateQuery } from '../workflows/messages.js';
import { timestampMs } from './proto-time.js';

/**
 * A worker heartbeat older than this does not count: the SDK sends one a minute by default
 * (`worker` commands every 10 s, worker-command.ts), so a live worker is never taken for gone.
 */
const WORKER_HEARTBEAT_FRESH_MS = 150_000;

/** A started step that beat (or started) longer ago than this does not count as running: steps beat every 5 s. */
const STEP_BEAT_FRESH_MS = 90_000;

/** How long `status` waits for another loop to say which jobs it runs. */
const HOLDER_QUERY_DEADLINE_MS = 5_000;

/** A loop whose jobs run on a busy lane, and how many. */
interface LaneHolder {
  readonly loopId: string;
  readonly jobs: number;
}

/**
 * A queue whose live workers have no free slot: it is served, its jobs wait for one. Every slot
 * runs a job, or (`slots` 0) the worker holds its slots back (a GPU lane waiting for memory).
 */
export interface LaneBusy {
  readonly workers: readonly string[];
  readonly slots: number;
  /** The loops whose in-flight jobs are on the lane, most first (empty: none of them answered). */
  readonly holders: readonly LaneHolder[];
}

/** One live worker of a queue as its heartbeat says. */
interface LiveWorker {
  readonly identity: string;
  readonly used: number;
  readonly available: number;
}

/** The workers of an activity queue that sent a heartbeat lately and run; null when the server does not keep them. */
async function liveWorkers(client: Client, queue: string, now: number): Promise<LiveWorker[] | null> {
  const RUNNING = proto.temporal.api.enums.v1.WorkerStatus.WORKER_STATUS_RUNNING;
  try {
    const { workersInfo } = await client.workflowService.listWorkers({
      namespace: client.options.namespace,
      pageSize: 100,
      query: `TaskQueue = '${queue.replace(/'/g, "\\'")}'`,
    });
    return (workersInfo ?? [])
      .map((info) => info.workerHeartbeat)
      .filter((beat) => beat != null)
      .filter((beat) => beat.status === RUNNING && now - timestampMs(beat.heartbeatTime) < WORKER_HEARTBEAT_FRESH_MS)
      .map((beat) => ({
        identity: beat.workerIdentity ?? '?',
        used: beat.activityTaskSlotsInfo?.currentUsedSlots ?? 0,
        available: beat.activityTaskSlotsInfo?.currentAvailableSlots ?? 0,
      }));
  } catch {
    // A server without worker heartbeats (or a key not allowed to list workers): nothing to tell.
    return null;
  }
}

/** The running loops with jobs in flight on `queue`, most first. */
async function laneHolders(client: Client, queue: string): Promise<LaneHolder[]> {
  const holders: LaneHolder[] = [];
  const query = `LoopKind = 'generation' AND ExecutionStatus = 'Running'`;
  for await (const execution of client.workflow.list({ query })) {
    const id = execution.workflowId;
    try {
      const view = await client.connection.withDeadline(Date.now() + HOLDER_QUERY_DEADLINE_MS, () =>
        client.workflow.getHandle(id, execution.runId).query(stateQuery),
      );
      // Jobs sent to the lane that wait in its queue hold nothing: only those whose step runs count.
      const sent = view.in_flight.filter((flight) => flight.lane === queue);
      const running = await Promise.all(sent.map((flight) => runsStartedActivity(client, flight.childId)));
      const jobs = running.filter(Boolean).length;
      if (jobs > 0) holders.push({ loopId: view.loop_id, jobs });
    } catch {
      // A loop that does not answer in time is left out; the line says whose jobs it knows.
    }
  }
  return holders.sort((a, b) => b.jobs - a.jobs || a.loopId.localeCompare(b.loopId));
}

/**
 * Whether a queue no worker polls is busy: live workers report running work and no free slot.
 * Null when no live worker reports it (or the server keeps no worker heartbeats): unserved.
 */
export async function laneBusy(client: Client, queue: string, now = Date.now()): Promise<LaneBusy | null> {
  const workers = await liveWorkers(client, queue, now);
  if (workers === null || workers.length === 0) return null;
  // A live worker with a free slot polls: its queue is not one nobody polls for being busy.
  if (workers.some((worker) => worker.available > 0)) return null;
  return {
    workers: workers.map((worker) => worker.identity),
    slots: workers.reduce((sum, worker) => sum + worker.used, 0),
    holders: await laneHolders(client, queue),
  };
}

/** The words for a busy queue: served, no slot free, by whose jobs; no new worker wanted. */
export function busyWords(queue: string, busy: LaneBusy): string {
  const jobs = busy.holders.map((holder) => `loop ${holder.loopId}: ${holder.jobs}`);
  const whose = jobs.length === 0 ? '' : ` (jobs of ${jobs.join(', ')})`;
  const one = busy.workers.length === 1;
  const workers = one ? `its worker (${busy.workers[0]})` : `its ${busy.workers.length} workers`;
  const doing =
    busy.slots === 0
      ? `${workers} ${one ? 'takes' : 'take'} no job now (no slot free: a GPU lane waits for device memory)`
      : `${workers} ${one ? 'runs' : 'run'} a job in every slot (${busy.slots})${whose}`;
  return `task queue ${queue} is busy, not unserved: ${doing}; this loop's jobs there wait for a slot (do not start another worker for the same device)`;
}

/**
 * Whether a workflow has an activity a worker started and heartbeats (or started) within
 * STEP_BEAT_FRESH_MS: that worker lives, though with every slot taken it does not poll.
 */
export async function runsStartedActivity(client: Client, workflowId: string, now = Date.now()): Promise<boolean> {
  const { PendingActivityState } = proto.temporal.api.enums.v1;
  try {
    const pending = (await client.workflow.getHandle(workflowId).describe()).raw.pendingActivities ?? [];
    return pending.some(
      (activity) =>
        activity.state === PendingActivityState.PENDING_ACTIVITY_STATE_STARTED &&
        now - Math.max(timestampMs(activity.lastHeartbeatTime), timestampMs(activity.lastStartedTime)) <
          STEP_BEAT_FRESH_MS,
    );
  } catch {
    return false;
  }
}
