// Plain decoding of the events a workflow's history holds: payloads, times, event types. Not
// workflow code (never bundled); it lives beside the workflows because it reads their histories.
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';

export type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;

// A CommonJS package: its namespace comes through the default export under plain Node ESM.
const E = proto.temporal.api.enums.v1.EventType;
export const EventType = {
  taskStarted: E.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  taskCompleted: E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  marker: E.EVENT_TYPE_MARKER_RECORDED,
  activityCompleted: E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  activityFailed: E.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  activityTimedOut: E.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  signaled: E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
  updateAccepted: E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  propertiesModified: E.EVENT_TYPE_WORKFLOW_PROPERTIES_MODIFIED,
  childInitiated: E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
  childCompleted: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED,
  childFailed: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
  childCanceled: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED,
  childTimedOut: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT,
  childTerminated: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED,
};

/** The value of one payload (the first by default), as the SDK's default converter reads it. */
export function decode(payloads: readonly Payload[] | null | undefined, index = 0): unknown {
  const payload = payloads?.[index];
  return payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
}

/** When the event was written, as an ISO time (milliseconds). */
export function isoTime(event: HistoryEvent): string {
  const { seconds, nanos } = event.eventTime ?? {};
  return new Date(Number(seconds ?? 0) * 1000 + Math.floor((nanos ?? 0) / 1e6)).toISOString();
}
