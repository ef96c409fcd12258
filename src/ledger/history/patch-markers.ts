// Where in a run's history the code behind a `patched(id)` change took over: the SDK records a
// `core_patch` marker in the first workflow task that called `patched(id)`, and baseline code
// records the baseline's marker (patches.ts) in every run's first task.
import { BASELINE } from '../../workflows/patches.js';
import { decode, EventType, type HistoryEvent } from './events.js';

/**
 * Events after this index were handled by code with the retired `patched(id)` change: the first
 * such task is the one that recorded its marker or the baseline's (Infinity when the run has neither).
 */
export function patchedFrom(events: readonly HistoryEvent[], id: string): number {
  return Math.min(markedFrom(events, id), markedFrom(events, BASELINE));
}

function markedFrom(events: readonly HistoryEvent[], id: string): number {
  const marker = events.find((event) => {
    const attributes = event.markerRecordedEventAttributes;
    if (event.eventType !== EventType.marker || attributes?.markerName !== 'core_patch') return false;
    const data = decode(attributes.details?.['patch-data']?.payloads) as { id?: string } | undefined;
    return data?.id === id;
  });
  if (!marker) return Infinity;
  const taskId = String(marker.markerRecordedEventAttributes?.workflowTaskCompletedEventId ?? '');
  const task = events.findIndex((event) => String(event.eventId) === taskId);
  for (let index = task - 1; index >= 0; index -= 1)
    if (events[index]?.eventType === EventType.taskCompleted) return index;
  return -1;
}

/** Whether the run recorded the marker of the open patch `id` (its code had the change from its first task on). */
export function recordedPatch(events: readonly HistoryEvent[], id: string): boolean {
  return markedFrom(events, id) !== Infinity;
}
