import proto from '@temporalio/proto';
import Long from 'long';
import { describe, expect, it } from 'vitest';
import { handlingOrder, type Handling } from '../../src/ledger/history/handling-order.js';

const E = proto.temporal.api.enums.v1.EventType;
type Event = proto.temporal.api.history.v1.IHistoryEvent;

/** A history from short names; a completed task names the started event before it. */
function history(names: readonly string[]): { events: Event[]; handling: (index: number) => Handling } {
  const types: Record<string, number> = {
    scheduled: E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED,
    started: E.EVENT_TYPE_WORKFLOW_TASK_STARTED,
    completed: E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
    failed: E.EVENT_TYPE_WORKFLOW_TASK_FAILED,
    child: E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
    signal: E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
    update: E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
    activity: E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  };
  const events = names.map((name, index): Event => {
    const type = types[name.replace(/\d+$/, '')];
    if (type === undefined) throw new Error(`no event type ${name}`);
    return { eventId: Long.fromNumber(index + 1), eventType: type };
  });
  let lastStarted = 0;
  for (const event of events) {
    if (event.eventType === E.EVENT_TYPE_WORKFLOW_TASK_STARTED) lastStarted = Number(event.eventId);
    if (event.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
      event.workflowTaskCompletedEventAttributes = { startedEventId: Long.fromNumber(lastStarted) };
  }
  const handling = (index: number): Handling => {
    const name = names[index] ?? '';
    if (name.startsWith('child')) return 'command';
    if (name.startsWith('signal')) return 'message';
    if (name.startsWith('update')) return 'accepted-message';
    return 'result';
  };
  return { events, handling };
}

function order(names: readonly string[]): string[] {
  const { events, handling } = history(names);
  return handlingOrder(events, handling)
    .map((index) => names[index] ?? '')
    .filter((name) => !/^(scheduled|started|completed|failed)$/.test(name));
}

describe('the order a workflow handles its history in', () => {
  it('is history order when each task handles one event', () => {
    expect(
      order([
        'scheduled',
        'started',
        'completed',
        'child1',
        'activity1',
        'scheduled',
        'started',
        'completed',
        'signal1',
        'scheduled',
        'started',
        'completed',
      ]),
    ).toEqual(['child1', 'activity1', 'signal1']);
  });

  it('puts a task’s signals before the results it handled, whatever came first in history', () => {
    expect(
      order([
        'scheduled',
        'started',
        'completed',
        'child1',
        'child2',
        'activity1',
        'signal1',
        'activity2',
        'signal2',
        'scheduled',
        'started',
        'completed',
        'activity3',
      ]),
    ).toEqual(['child1', 'child2', 'signal1', 'signal2', 'activity1', 'activity2']);
  });

  it('keeps a command after what the task that made it handled, and before the next task’s events', () => {
    expect(
      order([
        'scheduled',
        'started',
        'completed',
        'activity1',
        'signal1',
        'scheduled',
        'started',
        'completed',
        'child1',
        'signal2',
        'scheduled',
        'started',
        'completed',
      ]),
    ).toEqual(['signal1', 'activity1', 'child1', 'signal2']);
  });

  it('counts an accepted update among the messages of the task that accepted it', () => {
    expect(
      order([
        'scheduled',
        'started',
        'completed',
        'activity1',
        'signal1',
        'scheduled',
        'started',
        'completed',
        'update1',
        'child1',
        'activity2',
        'scheduled',
        'started',
        'completed',
      ]),
    ).toEqual(['signal1', 'update1', 'activity1', 'child1', 'activity2']);
  });

  it('hands the events of a failed task to the next task that completes', () => {
    expect(
      order([
        'scheduled',
        'started',
        'completed',
        'activity1',
        'scheduled',
        'started',
        'failed',
        'signal1',
        'scheduled',
        'started',
        'completed',
      ]),
    ).toEqual(['signal1', 'activity1']);
  });

  it('leaves out events no completed task has handled yet, as the workflow has not seen them', () => {
    expect(order(['scheduled', 'started', 'completed', 'child1', 'activity1', 'signal1'])).toEqual(['child1']);
    expect(order(['scheduled', 'started', 'completed', 'activity1', 'scheduled', 'started', 'signal1'])).toEqual([]);
  });
});
