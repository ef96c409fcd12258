// Which of a loop's task queues no worker polls, and the command that starts one (issue 18).
import type { Client } from '@temporalio/client';
import { openPayloads } from '../codec/decode-payloads.js';
import { defaultPayloadConverter } from '@temporalio/common';
import proto from '@temporalio/proto';
import { DEFAULT_QUEUE_PREFIX, laneQueue } from '../config/lanes.js';
import type { LoopConfig } from '../config/loop-config.js';
import type { GenerationInput } from '../workflows/generation.js';
import { loopWorkflowId } from '../workflows/ids.js';
import { ORCHESTRATOR_QUEUE, PACKAGE_QUEUE } from '../workflows/queues.js';
import { busyWords, laneBusy, type LaneBusy } from './busy-lanes.js';
import { timestampMs } from './proto-time.js';
import { definedFields } from '../support/defined-fields.js';

/**
 * A worker last seen polling longer ago than this does not count. An idle worker's long poll
 * lasts up to a minute (the server's long-poll expiry) before it polls again, so a minute plus a
 * margin: a live idle worker never reads as gone.
 */
const POLLER_FRESH_MS = 90_000;

type QueueKind = 'orchestrator' | 'lane' | 'package';

/** One task queue of a loop, and what kind of worker serves it. */
export interface LoopQueue {
  readonly queue: string;
  readonly kind: QueueKind;
  /** Set where no worker polls because its workers run a job in every slot: served, busy (busy-lanes.ts). */
  readonly busy?: LaneBusy;
}

/** The queues a loop needs polled: the orchestrator's, each lane's, the package worker's when it packages. */
export function loopQueues(lanes: readonly string[], packages: boolean): LoopQueue[] {
  return [
    { queue: ORCHESTRATOR_QUEUE, kind: 'orchestrator' },
    ...lanes.map((queue) => ({ queue, kind: 'lane' as const })),
    ...(packages ? [{ queue: PACKAGE_QUEUE, kind: 'package' as const }] : []),
  ];
}

/** The queues of a loop.yaml. */
export function configQueues(config: Pick<LoopConfig, 'lanes' | 'commands'>): LoopQueue[] {
  return loopQueues(
    config.lanes.map((lane) => laneQueue(lane.host, lane.device)),
    config.commands.package !== null,
  );
}

/** The command that starts a worker for a queue. */
function workerCommand(queue: LoopQueue): string {
  if (queue.kind === 'orchestrator') return 'champion-loop worker orchestrator';
  if (queue.kind === 'package') return 'champion-loop worker package';
  const lane = new RegExp(`^${DEFAULT_QUEUE_PREFIX.replace(/\./g, '\\.')}\\.(.+)\\.gpu(\\d+)$`).exec(queue.queue);
  if (!lane) return `a GPU worker polling ${queue.queue}`;
  return `champion-loop worker gpu --device ${lane[2]} --host ${lane[1]} (add --cpu on a box without GPUs)`;
}

/**
 * One line per queue nobody polls, saying what that stops and how to start its worker; for a
 * queue whose workers are busy, whose jobs hold it instead.
 */
export function describeNoPoller(queue: LoopQueue): string {
  if (queue.busy) return busyWords(queue.queue, queue.busy);
  const what =
    queue.kind === 'orchestrator'
      ? 'the orchestrator: the loop makes no progress and answers no query'
      : queue.kind === 'lane'
        ? 'a lane: its jobs wait'
        : 'packaging: champions are not packaged';
  return `no worker polls task queue ${queue.queue} (${what}); start one with: ${workerCommand(queue)}`;
}

/**
 * How long a worker just started may take before it polls: the orchestrator bundles its
 * workflows first (2-9 s measured on a busy 2-core box), a lane checks its device. A queue never
 * polled is said to have no worker only after this (`queuesUnpolled`).
 */
const WORKER_START_GRACE_MS = 20_000;

/** Whether a worker polled the queue lately (POLLER_FRESH_MS), and whether one ever did (DescribeTaskQueue). */
async function pollersOf(
  client: Client,
  queue: LoopQueue,
  now = Date.now(),
): Promise<{ fresh: boolean; ever: boolean }> {
  const { TaskQueueType, TaskQueueKind } = proto.temporal.api.enums.v1;
  let response: proto.temporal.api.workflowservice.v1.IDescribeTaskQueueResponse;
  try {
    response = await client.workflowService.describeTaskQueue({
      namespace: client.options.namespace,
      taskQueue: { name: queue.queue, kind: TaskQueueKind.TASK_QUEUE_KIND_NORMAL },
      taskQueueType:
        queue.kind === 'orchestrator' ? TaskQueueType.TASK_QUEUE_TYPE_WORKFLOW : TaskQueueType.TASK_QUEUE_TYPE_ACTIVITY,
    });
  } catch {
    // Not allowed to ask (a narrow API key) or the server did not answer: nothing to tell.
    return { fresh: true, ever: true };
  }
  const pollers = response.pollers ?? [];
  return {
    fresh: pollers.some((poller) => now - timestampMs(poller.lastAccessTime) < POLLER_FRESH_MS),
    ever: pollers.length > 0,
  };
}

/**
 * The queues no worker polls now; a lane or package queue whose live workers run a job in every
 * slot comes with `busy` (served: its advice is to wait, not to start a worker).
 */
export async function queuesWithoutPoller(client: Client, queues: readonly LoopQueue[]): Promise<LoopQueue[]> {
  return (await unpolledQueues(client, queues)).map(({ queue }) => queue);
}

/** The queues no worker polls now, each with whether a worker ever polled it (the server still remembers one). */
async function unpolledQueues(
  client: Client,
  queues: readonly LoopQueue[],
): Promise<{ queue: LoopQueue; everPolled: boolean }[]> {
  const polled = await Promise.all(queues.map((queue) => pollersOf(client, queue)));
  return Promise.all(
    queues.flatMap((queue, index) => {
      const pollers = polled[index];
      if (pollers === undefined || pollers.fresh) return [];
      return [
        (async () => {
          const busy = queue.kind === 'orchestrator' ? null : await laneBusy(client, queue.queue);
          return { queue: busy === null ? queue : { ...queue, busy }, everPolled: pollers.ever };
        })(),
      ];
    }),
  );
}

/**
 * The queues no worker polls, said only once it is not a worker still starting: a queue some
 * worker polled and then went silent (or busy) at once; one no worker ever polled only after
 * `graceMs` without a poller (what `start` prints: an orchestrator started a moment before
 * bundles its workflows for seconds before it polls).
 */
export async function queuesUnpolled(
  client: Client,
  queues: readonly LoopQueue[],
  {
    graceMs = WORKER_START_GRACE_MS,
    intervalMs = 500,
    onWait,
  }: { graceMs?: number; intervalMs?: number; onWait?: (line: string) => void } = {},
): Promise<LoopQueue[]> {
  const deadline = Date.now() + graceMs;
  let told = false;
  for (;;) {
    const unpolled = await unpolledQueues(client, queues);
    const starting = unpolled.filter(({ everPolled }) => !everPolled).map(({ queue }) => queue.queue);
    if (starting.length === 0 || Date.now() >= deadline) return unpolled.map(({ queue }) => queue);
    if (!told)
      onWait?.(
        `no worker has polled ${starting.join(', ')} yet; waiting up to ${Math.round(graceMs / 1000)} s for one just started`,
      );
    told = true;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** The input run `runId` of the loop's workflow was started with (history's first event; absent: its latest run's); null without history. */
export async function startInputOf(client: Client, loopId: string, runId?: string): Promise<GenerationInput | null> {
  try {
    const { history } = await client.workflowService.getWorkflowExecutionHistory({
      namespace: client.options.namespace,
      execution: { workflowId: loopWorkflowId(loopId), ...definedFields({ runId }) },
      maximumPageSize: 1,
    });
    const first = await openPayloads(client, history?.events?.[0]);
    const input = first?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
    return input ? defaultPayloadConverter.fromPayload<GenerationInput>(input) : null;
  } catch (error) {
    if ((error as { code?: number }).code === 5) return null;
    throw error;
  }
}

/** The loop.yaml the loop's latest run was started with; null without history. */
export async function latestRunConfig(client: Client, loopId: string): Promise<LoopConfig | null> {
  return (await startInputOf(client, loopId))?.config ?? null;
}

/**
 * Wait until a worker polls each of `queues` (workers just started: the orchestrator bundles its
 * workflows first, for seconds). `gone` says why waiting is pointless (a worker process exited);
 * then this rejects with that reason.
 */
export async function waitForPollers(
  client: Client,
  queues: readonly LoopQueue[],
  { gone, intervalMs = 250 }: { gone: () => string | null; intervalMs?: number },
): Promise<void> {
  for (;;) {
    if ((await queuesWithoutPoller(client, queues)).every((queue) => queue.busy !== undefined)) return;
    const why = gone();
    if (why !== null) throw new Error(why);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
