// The lane steps of a loop's child workflows, read from their histories: each activity scheduled
// on a lane's queue, with its child's start, its scheduling, start and close.
import type { Client } from '@temporalio/client';
import type { temporal } from '@temporalio/proto';
import { timestampMs } from '../../../src/client/proto-time.js';
import type { LaneStep } from '../../lib/fairness-math.js';
import { mapLimit } from '../../lib/context.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** The event that closed the activity scheduled as event `id`, and whether it completed. */
function closing(events: readonly HistoryEvent[], id: number): { ms: number; completed: boolean } | null {
  for (const event of events) {
    const completed = event.activityTaskCompletedEventAttributes;
    const other =
      event.activityTaskFailedEventAttributes ??
      event.activityTaskTimedOutEventAttributes ??
      event.activityTaskCanceledEventAttributes;
    const scheduledId = completed?.scheduledEventId ?? other?.scheduledEventId;
    if (scheduledId !== undefined && scheduledId !== null && Number(scheduledId) === id)
      return { ms: timestampMs(event.eventTime), completed: completed !== undefined && completed !== null };
  }
  return null;
}

/** The lane steps in one child's history (its activities on a `.gpu` lane queue). */
function laneStepsIn(loop: string, events: readonly HistoryEvent[]): LaneStep[] {
  const childStartMs = timestampMs(events[0]?.eventTime);
  const steps: LaneStep[] = [];
  for (const event of events) {
    const scheduled = event.activityTaskScheduledEventAttributes;
    if (!scheduled?.taskQueue?.name?.includes('.gpu')) continue;
    const id = Number(event.eventId);
    const started = events.find((later) => Number(later.activityTaskStartedEventAttributes?.scheduledEventId) === id);
    const closed = closing(events, id);
    steps.push({
      loop,
      queue: scheduled.taskQueue.name,
      type: scheduled.activityType?.name ?? '',
      childStartMs,
      scheduledMs: timestampMs(event.eventTime),
      startedMs: started ? timestampMs(started.eventTime) : null,
      closedMs: closed?.ms ?? null,
      completed: closed?.completed ?? false,
    });
  }
  return steps;
}

/** Every lane step of `loop`'s children (training runs, reserve checks, teacher builds, ensembles). */
export async function loopLaneSteps(client: Client, loop: string): Promise<LaneStep[]> {
  const children: { workflowId: string; runId: string }[] = [];
  for await (const child of client.workflow.list({ query: `LoopId = '${loop}' AND LoopKind != 'generation'` }))
    children.push({ workflowId: child.workflowId, runId: child.runId });
  const histories = await mapLimit(children, 8, async (child) => {
    const history = await client.workflow.getHandle(child.workflowId, child.runId).fetchHistory();
    return laneStepsIn(loop, history.events ?? []);
  });
  return histories.flat();
}
