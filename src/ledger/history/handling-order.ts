import proto from '@temporalio/proto';

// A workflow does not handle the events of one workflow task in history order. The SDK applies
// the task's signals and updates first (their handlers run at once), and only then lets awaited
// results go on (an activity's result, a child's end), in history order. A ledger rebuilt from
// history must fold in that order, or two reports that reached one task fold the other way round
// (and the Pareto front lists its ties in another order than the workflow's).

type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
const E = proto.temporal.api.enums.v1.EventType;

/** How an event reaches the workflow's code. */
export type Handling =
  /** A command a task made (a child started): in effect after everything that task handled. */
  | 'command'
  /** A signal: its handler runs before awaited results go on. */
  | 'message'
  /** An update the task accepted (written after that task): among that task's messages. */
  | 'accepted-message'
  /** A result an `await` was waiting for (an activity's, a child's): handled after the messages. */
  | 'result';

const RANK: Readonly<Record<Handling, number>> = { message: 0, 'accepted-message': 0, result: 1, command: 2 };

/**
 * The indexes of the events the workflow has handled, in the order it handled them, given how
 * each reaches the code. A workflow task handles the events before its start that no earlier completed task
 * handled; a command or an accepted update belongs to the last task completed before it.
 */
export function handlingOrder(events: readonly HistoryEvent[], handling: (index: number) => Handling): number[] {
  const indexOfId = new Map(events.map((event, index) => [String(event.eventId), index]));
  const completedTaskStarts = new Set(
    events.flatMap((event) =>
      event.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED
        ? [indexOfId.get(String(event.workflowTaskCompletedEventAttributes?.startedEventId)) ?? -1]
        : [],
    ),
  );
  // The number of the completed task that handles the event at each index (counted from 0).
  const handledBy: number[] = [];
  let task = 0;
  for (let index = 0; index < events.length; index += 1) {
    handledBy.push(task);
    if (completedTaskStarts.has(index)) task += 1;
  }
  const keyed = events.map((_, index) => {
    const how = handling(index);
    const byTask =
      how === 'command' || how === 'accepted-message' ? (handledBy[index] ?? 0) - 1 : (handledBy[index] ?? 0);
    return { index, task: byTask, rank: RANK[how] };
  });
  // Events no completed task has handled yet are left out: the workflow has not seen them, and
  // where they go among the next task's events is known only once that task has run (a signal
  // arriving later still goes before them). So a fold of a growing history never changes rows
  // it gave before.
  const handled = keyed.filter((entry) => entry.task < task);
  handled.sort((a, b) => a.task - b.task || a.rank - b.rank || a.index - b.index);
  return handled.map((entry) => entry.index);
}
