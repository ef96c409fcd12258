// Reading Temporal histories for the benchmarks: when each step of a job happened (for the
// dispatch breakdown) and what a run's history holds (for the history cost).
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import { runReportedSignal } from '../../src/workflows/messages.js';

export type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
// A CommonJS package: its namespace comes through the default export under plain Node ESM.
const E = proto.temporal.api.enums.v1.EventType;

/** An event's time, epoch ms (with the server's sub-millisecond part). */
export function eventMs(event: HistoryEvent): number {
  const seconds = Number(event.eventTime?.seconds ?? 0);
  const nanos = event.eventTime?.nanos ?? 0;
  return seconds * 1000 + nanos / 1e6;
}

/** `WORKFLOW_TASK_STARTED` for EVENT_TYPE_WORKFLOW_TASK_STARTED. */
function eventTypeName(event: HistoryEvent): string {
  const name = E[event.eventType ?? 0] ?? 'UNKNOWN';
  return name.replace(/^EVENT_TYPE_/, '');
}

/** When an activity of one type was scheduled, started and completed (its first attempt that completed). */
interface ActivityTimes {
  readonly scheduled: number;
  readonly started: number | null;
  readonly completed: number | null;
}

/** A training-run child's history as times. */
export interface ChildTimeline {
  readonly started: number;
  /** When its first workflow task was picked up by a worker (WorkflowTaskStarted). */
  readonly firstTaskStarted: number | null;
  readonly activities: ReadonlyMap<string, ActivityTimes>;
  /**
   * When the report left: the child's completion (its result is its report), or for a child that
   * reports by signal (adopted, or started before children reported by completion) the signal.
   */
  readonly reportSent: number | null;
}

export function childTimeline(events: readonly HistoryEvent[]): ChildTimeline {
  const scheduledType = new Map<number, string>();
  const activities = new Map<string, { scheduled: number; started: number | null; completed: number | null }>();
  let started = Number.NaN;
  let firstTaskStarted: number | null = null;
  let reportSent: number | null = null;
  for (const event of events) {
    switch (event.eventType) {
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_STARTED:
        started = eventMs(event);
        break;
      case E.EVENT_TYPE_WORKFLOW_TASK_STARTED:
        firstTaskStarted ??= eventMs(event);
        break;
      case E.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED: {
        const name = event.activityTaskScheduledEventAttributes?.activityType?.name ?? '?';
        scheduledType.set(Number(event.eventId), name);
        if (!activities.has(name)) activities.set(name, { scheduled: eventMs(event), started: null, completed: null });
        break;
      }
      case E.EVENT_TYPE_ACTIVITY_TASK_STARTED: {
        const name = scheduledType.get(Number(event.activityTaskStartedEventAttributes?.scheduledEventId));
        const times = name === undefined ? undefined : activities.get(name);
        if (times && times.started === null) times.started = eventMs(event);
        break;
      }
      case E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED: {
        const name = scheduledType.get(Number(event.activityTaskCompletedEventAttributes?.scheduledEventId));
        const times = name === undefined ? undefined : activities.get(name);
        if (times && times.completed === null) times.completed = eventMs(event);
        break;
      }
      case E.EVENT_TYPE_SIGNAL_EXTERNAL_WORKFLOW_EXECUTION_INITIATED:
      case E.EVENT_TYPE_WORKFLOW_EXECUTION_COMPLETED:
        reportSent ??= eventMs(event);
        break;
      default:
        break;
    }
  }
  return { started, firstTaskStarted, activities, reportSent };
}

/** The generation's side of each child: when its report arrived (its completion or its signal) and when it was started. */
export interface GenerationTimeline {
  readonly reported: ReadonlyMap<string, number>;
  readonly initiated: ReadonlyMap<string, number>;
  /** The generation's workflow task that initiated a child: when it started. */
  readonly initiatingTaskStarted: ReadonlyMap<string, number>;
}

export function generationTimeline(runs: readonly (readonly HistoryEvent[])[]): GenerationTimeline {
  const reported = new Map<string, number>();
  const initiated = new Map<string, number>();
  const initiatingTaskStarted = new Map<string, number>();
  for (const events of runs) {
    let taskStarted = Number.NaN;
    for (const event of events) {
      if (event.eventType === E.EVENT_TYPE_WORKFLOW_TASK_STARTED) taskStarted = eventMs(event);
      if (event.eventType === E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED) {
        const id = event.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId;
        if (id && !initiated.has(id)) {
          initiated.set(id, eventMs(event));
          initiatingTaskStarted.set(id, taskStarted);
        }
      }
      const signal = event.workflowExecutionSignaledEventAttributes;
      if (
        event.eventType === E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED &&
        signal?.signalName === runReportedSignal.name
      ) {
        const payload: Payload | undefined = signal.input?.payloads?.[0] ?? undefined;
        const report: { childId?: string } = payload ? defaultPayloadConverter.fromPayload(payload) : {};
        if (report.childId && !reported.has(report.childId)) reported.set(report.childId, eventMs(event));
      }
      const completed = event.childWorkflowExecutionCompletedEventAttributes?.workflowExecution?.workflowId;
      if (completed && !reported.has(completed)) reported.set(completed, eventMs(event));
    }
  }
  return { reported, initiated, initiatingTaskStarted };
}

/** Events of each type over a chain of runs. */
export function eventTypeCounts(runs: readonly (readonly HistoryEvent[])[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const events of runs)
    for (const event of events) counts.set(eventTypeName(event), (counts.get(eventTypeName(event)) ?? 0) + 1);
  return new Map([...counts].sort((a, b) => b[1] - a[1]));
}

/** Bytes of a run's input (the carry continue-as-new hands over lives there). */
export function inputBytes(events: readonly HistoryEvent[]): number {
  const payloads = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads ?? [];
  return payloads.reduce((sum, payload) => sum + (payload.data?.length ?? 0), 0);
}

/** Failed activities of a chain of runs: activity type and failure message, with how often. */
export function activityFailures(
  runs: readonly (readonly HistoryEvent[])[],
): { activity: string; message: string; count: number }[] {
  const counts = new Map<string, { activity: string; message: string; count: number }>();
  for (const events of runs) {
    const types = new Map<number, string>();
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (scheduled) types.set(Number(event.eventId), scheduled.activityType?.name ?? '?');
      const failed = event.activityTaskFailedEventAttributes;
      if (failed) {
        const activity = types.get(Number(failed.scheduledEventId)) ?? '?';
        const message = (failed.failure?.message ?? '').slice(0, 200);
        const key = `${activity}\u0000${message}`;
        const entry = counts.get(key) ?? { activity, message, count: 0 };
        entry.count += 1;
        counts.set(key, entry);
      }
    }
  }
  return [...counts.values()].sort((a, b) => b.count - a.count);
}
