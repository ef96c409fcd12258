// What the ledger fold reads of one run of the packaging workflow: champions it took, package
// outcomes and a stop at once, decided by the rule its signal handler applies (report-shapes.ts, takenChampion).
import proto from '@temporalio/proto';
import type { PackagingEvent, PackagingRunHistory } from './fold.js';
import { REGISTER_CHAMPION } from '../../registry/index.js';
import { championSignal, stopNowSignal } from '../../workflows/messages.js';
import { BOUNDED_SIGNALS, PACKAGED_ONCE } from '../../workflows/patches.js';
import { takenChampion } from '../../workflows/report-shapes.js';
import { decode, EventType, isoTime, type HistoryEvent } from './events.js';
import { patchedFrom, recordedPatch } from './patch-markers.js';

/** What the ledger fold reads of one run of the packaging workflow. */
export function packagingRunOf(events: readonly HistoryEvent[]): PackagingRunHistory {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const input = decode(started?.input?.payloads) as PackagingRunHistory['input'];
  const packaging: PackagingEvent[] = [];
  const boundedFrom = patchedFrom(events, BOUNDED_SIGNALS);
  // Model registrations (loop.yaml mlflow) are activities of this workflow too; the workflow's fold takes package outcomes only.
  const registrations = new Set<string>();
  for (const event of events) {
    if (event.activityTaskScheduledEventAttributes?.activityType?.name === REGISTER_CHAMPION)
      registrations.add(String(event.eventId));
  }
  const scheduledId = (event: HistoryEvent): string =>
    String(
      (
        event.activityTaskCompletedEventAttributes ??
        event.activityTaskFailedEventAttributes ??
        event.activityTaskTimedOutEventAttributes
      )?.scheduledEventId,
    );
  for (const [index, event] of events.entries()) {
    if (registrations.has(scheduledId(event))) continue;
    const signal = event.eventType === EventType.signaled ? event.workflowExecutionSignaledEventAttributes : null;
    if (signal?.signalName === championSignal.name) {
      // A malformed champion (sent by hand), or one over the bounds, is skipped, as the workflow skipped it.
      const champion = takenChampion(decode(signal.input?.payloads), () => index > boundedFrom);
      if (champion) packaging.push({ kind: 'champion', champion });
    } else if (signal?.signalName === stopNowSignal.name) {
      packaging.push({ kind: 'stopped-at-once', time: isoTime(event) });
    } else if (event.eventType === EventType.activityCompleted) {
      packaging.push({
        kind: 'package-finished',
        outcome: decode(event.activityTaskCompletedEventAttributes?.result?.payloads) as never,
      });
    } else if (event.eventType === EventType.activityFailed || event.eventType === EventType.activityTimedOut) {
      const failure =
        event.activityTaskFailedEventAttributes?.failure ?? event.activityTaskTimedOutEventAttributes?.failure;
      packaging.push({
        kind: 'package-finished',
        outcome: { launched: false, error: packageFailureText(failure, input), time: isoTime(event) },
      });
    }
  }
  // Code before patch packaged-once packaged a checkpoint again after a success.
  return { input, events: packaging, ...(recordedPatch(events, PACKAGED_ONCE) ? {} : { packagedOnce: false }) };
}

/** Why a package command has no exit code: a timeout names the loop.yaml limit that ended it. */
function packageFailureText(
  failure: proto.temporal.api.failure.v1.IFailure | null | undefined,
  input: PackagingRunHistory['input'] | undefined,
): string {
  const TimeoutType = proto.temporal.api.enums.v1.TimeoutType;
  switch (failure?.timeoutFailureInfo?.timeoutType) {
    case TimeoutType.TIMEOUT_TYPE_START_TO_CLOSE:
      return `package command timed out: no result within ${input?.timeouts.package ?? 'its limit'} (loop.yaml timeouts.package); it was killed, see its log`;
    case TimeoutType.TIMEOUT_TYPE_HEARTBEAT:
      return `package worker lost: no heartbeat within ${input?.timeouts.heartbeat ?? 'its limit'} (loop.yaml timeouts.heartbeat); the command's exit code is unknown`;
    default:
      return failure?.message ?? 'activity failed';
  }
}
