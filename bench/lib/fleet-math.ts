// The fleet section's arithmetic: how busy the lanes were while work waited, the generation's
// workflow-task figures from its history, the dispatch ceiling across load steps, and the fleet
// a ceiling carries. Pure, no I/O.
import proto from '@temporalio/proto';
import { eventMs, type HistoryEvent } from './history.js';
import { summarize, type Summary } from './stats.js';

const E = proto.temporal.api.enums.v1.EventType;

/** A span of time a lane slot spent running a step process (ms, one clock). */
export interface Busy {
  readonly start: number;
  readonly end: number;
}

/**
 * The steady window of a run on `slots` slots: from the moment every slot had taken its first
 * job (the `slots`-th start) to the last job's start (after it the queue is empty and slots idle
 * for want of work, not for want of dispatch). null when there are not more jobs than slots.
 */
export function steadyWindow(starts: readonly number[], slots: number): { from: number; to: number } | null {
  if (starts.length <= slots) return null;
  const sorted = [...starts].sort((a, b) => a - b);
  const from = sorted[slots - 1] as number;
  const to = sorted[sorted.length - 1] as number;
  return to > from ? { from, to } : null;
}

/** Share (0..1) of `slots` x the window that the spans cover: the lanes' busy fraction while work waited. */
export function busyFraction(spans: readonly Busy[], slots: number, window: { from: number; to: number }): number {
  const length = window.to - window.from;
  if (length <= 0 || slots <= 0) return Number.NaN;
  let covered = 0;
  for (const span of spans) covered += Math.max(0, Math.min(span.end, window.to) - Math.max(span.start, window.from));
  return covered / (slots * length);
}

/** The generation's workflow tasks over a chain of runs (continue-as-new included). */
export interface WorkflowTaskStats {
  /** Workflow tasks completed within the window. */
  readonly completed: number;
  /** Completed workflow tasks per second within the window. */
  readonly ratePerS: number;
  /** Scheduled -> started of every task that started within the window (ms): how long a task waited for the orchestrator. */
  readonly scheduleToStart: Summary;
  /** Started -> completed (ms): the orchestrator's time on a task, replay and round trip included. */
  readonly taskTime: Summary;
  /**
   * Share (0..1) of the window during which a workflow task of the generation was scheduled or
   * running. A workflow has at most one task outstanding, so near 1 the generation itself is the
   * queue: events wait in it for the next task whatever the orchestrator's spare CPU.
   */
  readonly occupancy: number;
  /** Events in all, and runs of the chain (a continue-as-new starts the next). */
  readonly events: number;
  readonly runs: number;
}

export function workflowTaskStats(
  runs: readonly (readonly HistoryEvent[])[],
  window: { from: number; to: number },
): WorkflowTaskStats {
  const waits: number[] = [];
  const times: number[] = [];
  let completed = 0;
  let occupied = 0;
  const inWindow = (ms: number) => ms >= window.from && ms <= window.to;
  for (const events of runs) {
    const scheduled = new Map<number, number>();
    const started = new Map<number, number>();
    for (const event of events) {
      const id = Number(event.eventId);
      if (event.eventType === E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED) scheduled.set(id, eventMs(event));
      if (event.eventType === E.EVENT_TYPE_WORKFLOW_TASK_STARTED) {
        const at = eventMs(event);
        started.set(id, at);
        const from = scheduled.get(Number(event.workflowTaskStartedEventAttributes?.scheduledEventId));
        if (from !== undefined && inWindow(at)) waits.push(at - from);
      }
      if (event.eventType === E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED) {
        const at = eventMs(event);
        const queued = scheduled.get(Number(event.workflowTaskCompletedEventAttributes?.scheduledEventId));
        if (queued !== undefined) occupied += Math.max(0, Math.min(at, window.to) - Math.max(queued, window.from));
        if (!inWindow(at)) continue;
        completed += 1;
        const from = started.get(Number(event.workflowTaskCompletedEventAttributes?.startedEventId));
        if (from !== undefined) times.push(at - from);
      }
    }
  }
  const seconds = (window.to - window.from) / 1000;
  return {
    completed,
    ratePerS: seconds > 0 ? completed / seconds : Number.NaN,
    scheduleToStart: summarize(waits),
    taskTime: summarize(times),
    occupancy: seconds > 0 ? occupied / 1000 / seconds : Number.NaN,
    events: runs.reduce((sum, events) => sum + events.length, 0),
    runs: runs.length,
  };
}

/** One load step of the ceiling search. */
export interface LoadStep {
  /** Dispatches per second the loop achieved over the step's steady window. */
  readonly ratePerS: number;
  readonly p99Ms: number;
}

/**
 * The ceiling: the highest dispatch rate achieved with dispatch p99 within `limitMs`, and
 * whether a step passed the limit (without one the true ceiling lies higher than measured).
 */
export function dispatchCeiling(
  steps: readonly LoadStep[],
  limitMs: number,
): { ceilingPerS: number | null; passed: boolean } {
  const within = steps.filter((step) => step.p99Ms <= limitMs && Number.isFinite(step.ratePerS));
  return {
    ceilingPerS: within.length === 0 ? null : Math.max(...within.map((step) => step.ratePerS)),
    passed: steps.some((step) => step.p99Ms > limitMs),
  };
}

/** Lanes one generation keeps fed at `ratePerS` dispatches per second when each job takes `jobSeconds` (Little's law: lanes = rate x duration). */
export function lanesCarried(ratePerS: number, jobSeconds: number): number {
  return ratePerS * jobSeconds;
}
