// What the ledger fold reads of one run of the generation workflow: the events it handled, in the
// order it handled them, each decided by the rules the workflow's own handlers apply
// (report-shapes.ts: foldedRunReport, foldedAdvanceReason, childLostWhy).
import type { GenerationEvent, GenerationRunHistory } from './fold.js';
import { untrainedRun, type GivenUpRun } from '../report-fold.js';
import { CHILD_OUTCOME, type ChildOutcome } from '../../activities/child-outcome.js';
import { trainingRunWorkflowId } from '../../workflows/ids.js';
import type { JobInput } from '../../workflows/job-input.js';
import {
  advanceSignal,
  advanceUpdate,
  reserveReportedSignal,
  runReportedSignal,
  teacherReportedSignal,
} from '../../workflows/messages.js';
import { BOUNDED_SIGNALS, CHAMPION_IDENTITY, GIVEN_UP_RUN_ROWS } from '../../workflows/patches.js';
import {
  childLostWhy,
  foldedAdvanceReason,
  foldedRunReport,
  isReserveReport,
  isTeacherReport,
} from '../../workflows/report-shapes.js';
import { reserveCheck } from '../../workflows/reserve-check.js';
import { isSplitFailedRow, SPLIT_FAILED_MEMO } from '../../workflows/split-failure.js';
import { teacherBuild } from '../../workflows/teacher-build.js';
import { trainingRun } from '../../workflows/training-run.js';
import type { TrainingRunInput } from '../../workflows/training-run-plan.js';
import { decode, EventType, isoTime, type HistoryEvent } from './events.js';
import { handlingOrder, type Handling } from './handling-order.js';
import { patchedFrom, recordedPatch } from './patch-markers.js';

/** What the history says of one run's children, by the id of the event that initiated each. */
interface RunLookups {
  /** Activity type by the id of the event that scheduled it. */
  readonly activityTypes: ReadonlyMap<string, string>;
  /** The report kind of each child started to report by its completion (patch reports-by-completion). */
  readonly reportsByCompletion: ReadonlyMap<string, ReportedKind>;
  /** Whether the code that handled the event at an index bounds what signals carry (patch bounded-signals). */
  readonly bounds: (index: number) => boolean;
}

type ReportedKind = 'run-reported' | 'teacher-reported' | 'reserve-reported';
const REPORTED_KIND: Readonly<Record<string, ReportedKind>> = {
  [trainingRun.name]: 'run-reported',
  [teacherBuild.name]: 'teacher-reported',
  [reserveCheck.name]: 'reserve-reported',
};

function runLookups(events: readonly HistoryEvent[]): RunLookups {
  const activityTypes = new Map<string, string>();
  const reportsByCompletion = new Map<string, ReportedKind>();
  for (const event of events) {
    const name = event.activityTaskScheduledEventAttributes?.activityType?.name;
    if (name) activityTypes.set(String(event.eventId), name);
    const child = event.startChildWorkflowExecutionInitiatedEventAttributes;
    const kind = REPORTED_KIND[child?.workflowType?.name ?? ''];
    if (child && kind && (decode(child.input?.payloads) as JobInput | undefined)?.reportBy === 'completion')
      reportsByCompletion.set(String(event.eventId), kind);
  }
  const boundedFrom = patchedFrom(events, BOUNDED_SIGNALS);
  return { activityTypes, reportsByCompletion, bounds: (index) => index > boundedFrom };
}

/** A report of `kind`, as the generation folds it (null: skipped, as the workflow skips it). */
function reportOf(kind: ReportedKind, sent: unknown, bounds: () => boolean): GenerationEvent | null {
  switch (kind) {
    case 'run-reported': {
      const report = foldedRunReport(sent, bounds);
      return report ? { kind, report } : null;
    }
    case 'teacher-reported':
      return isTeacherReport(sent) ? { kind, report: sent } : null;
    case 'reserve-reported':
      return isReserveReport(sent) ? { kind, report: sent } : null;
  }
}

const SIGNALLED_KIND: Readonly<Record<string, ReportedKind>> = {
  [runReportedSignal.name]: 'run-reported',
  [reserveReportedSignal.name]: 'reserve-reported',
  [teacherReportedSignal.name]: 'teacher-reported',
};

function generationEvent(event: HistoryEvent, index: number, lookups: RunLookups): GenerationEvent | null {
  const bounds = () => lookups.bounds(index);
  switch (event.eventType) {
    case EventType.childCompleted: {
      const attributes = event.childWorkflowExecutionCompletedEventAttributes;
      const kind = lookups.reportsByCompletion.get(String(attributes?.initiatedEventId ?? ''));
      return kind ? reportOf(kind, decode(attributes?.result?.payloads), bounds) : null;
    }
    case EventType.activityCompleted: {
      const attributes = event.activityTaskCompletedEventAttributes;
      if (lookups.activityTypes.get(String(attributes?.scheduledEventId)) !== CHILD_OUTCOME) return null;
      return childOutcomeEvent(decode(attributes?.result?.payloads) as ChildOutcome | undefined, bounds);
    }
    case EventType.childInitiated: {
      const attributes = event.startChildWorkflowExecutionInitiatedEventAttributes;
      const workflowId = attributes?.workflowId;
      return workflowId
        ? {
            kind: 'child-started',
            workflowId,
            ...untrainedRunOf(workflowId, decode(attributes?.input?.payloads) as TrainingRunInput | undefined),
          }
        : null;
    }
    case EventType.childFailed:
    case EventType.childCanceled:
    case EventType.childTimedOut:
    case EventType.childTerminated: {
      const attributes =
        event.childWorkflowExecutionFailedEventAttributes ??
        event.childWorkflowExecutionCanceledEventAttributes ??
        event.childWorkflowExecutionTimedOutEventAttributes ??
        event.childWorkflowExecutionTerminatedEventAttributes;
      const workflowId = attributes?.workflowExecution?.workflowId;
      return workflowId ? { kind: 'child-lost', workflowId, why: lostWhy(event) } : null;
    }
    case EventType.signaled: {
      const attributes = event.workflowExecutionSignaledEventAttributes;
      const input = decode(attributes?.input?.payloads);
      const name = attributes?.signalName ?? '';
      if (name === advanceSignal.name) return { kind: 'advance', reason: foldedAdvanceReason(input, bounds) };
      const kind = SIGNALLED_KIND[name];
      // A malformed report (sent by hand) is skipped, as the workflow skipped it.
      return kind ? reportOf(kind, input, bounds) : null;
    }
    case EventType.updateAccepted: {
      const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      if (request?.name !== advanceUpdate.name) return null;
      return { kind: 'advance', reason: foldedAdvanceReason(decode(request.args?.payloads), bounds) };
    }
    case EventType.propertiesModified: {
      // The memo a given-up split writes holds its row (patch split-gives-up); other memo changes hold none.
      const fields = event.workflowPropertiesModifiedEventAttributes?.upsertedMemo?.fields;
      const row = fields?.[SPLIT_FAILED_MEMO] ? decode([fields[SPLIT_FAILED_MEMO]]) : undefined;
      return isSplitFailedRow(row) ? { kind: 'split-failed', row } : null;
    }
    default:
      return null;
  }
}

/** What the ledger fold reads of one run of the generation workflow. */
export function generationRunOf(events: readonly HistoryEvent[]): GenerationRunHistory {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const firstTask = events.find((event) => event.eventType === EventType.taskStarted);
  const lookups = runLookups(events);
  const givenUpRowsFrom = patchedFrom(events, GIVEN_UP_RUN_ROWS);
  const folded = events.map((event, index): GenerationEvent | null => {
    const folded = generationEvent(event, index, lookups);
    // A lost child is folded as the workflow's clock read it, by code with or without given-up rows.
    return folded?.kind === 'child-lost'
      ? { ...folded, time: taskTimeAfter(events, index), givenUpRows: index > givenUpRowsFrom }
      : folded;
  });
  return {
    input: decode(started?.input?.payloads) as GenerationRunHistory['input'],
    firstTaskTime: firstTask ? isoTime(firstTask) : '',
    // Code before patch champion-identity told a champion that stayed by its object.
    ...(recordedPatch(events, CHAMPION_IDENTITY) ? {} : { championIdentity: 'object' as const }),
    // In the order the workflow handled them, which is not history order within a workflow task.
    events: handlingOrder(events, (index) => handlingOf(events[index]))
      .map((index) => folded[index])
      .filter((event): event is GenerationEvent => event !== null && event !== undefined),
  };
}

function handlingOf(event: HistoryEvent | undefined): Handling {
  switch (event?.eventType) {
    case EventType.childInitiated:
    case EventType.propertiesModified:
      return 'command';
    case EventType.signaled:
      return 'message';
    case EventType.updateAccepted:
      return 'accepted-message';
    default:
      return 'result';
  }
}

/** A training run child that trains (not an evaluation-only retry or an ensemble): its run, and which attempt it is. */
function untrainedRunOf(
  workflowId: string,
  input: TrainingRunInput | undefined,
): { run?: GivenUpRun; attempt?: number } {
  const plan = input?.plan;
  const run = plan ? untrainedRun({ ...plan, run: input.run, reportRun: input.reportRun ?? false }) : null;
  if (!plan || !run) return {};
  const base = trainingRunWorkflowId(
    input.loopId,
    plan.generation,
    plan.round,
    plan.candidate.name,
    1,
    input.incarnation,
  );
  const attempt = workflowId === base ? 1 : Number(workflowId.slice(base.length + 1));
  return { run, attempt };
}

/** Why a child ended without a report, as the workflow words it (report-shapes.ts, childLostWhy). */
function lostWhy(event: HistoryEvent): string {
  switch (event.eventType) {
    case EventType.childTerminated:
      return childLostWhy({ how: 'terminated' });
    case EventType.childCanceled:
      return childLostWhy({ how: 'cancelled' });
    case EventType.childTimedOut:
      return childLostWhy({ how: 'timed-out' });
    default:
      return childLostWhy({
        how: 'failed',
        message: event.childWorkflowExecutionFailedEventAttributes?.failure?.message ?? '',
      });
  }
}

/** The workflow's clock when it handled the event at `index`: the start of the next workflow task that completed. */
function taskTimeAfter(events: readonly HistoryEvent[], index: number): string {
  const completed = events.slice(index + 1).find((event) => event.eventType === EventType.taskCompleted);
  const startedId = String(completed?.workflowTaskCompletedEventAttributes?.startedEventId ?? '');
  const started = events.find((event) => String(event.eventId) === startedId);
  return started ? isoTime(started) : '';
}

/** A child's outcome the generation asked for (a child found started already): its report, or its loss. */
function childOutcomeEvent(outcome: ChildOutcome | undefined, bounds: () => boolean): GenerationEvent | null {
  if (outcome?.status === 'closed') return { kind: 'child-lost', workflowId: outcome.workflowId, why: outcome.why };
  if (outcome?.status !== 'completed') return null;
  const kind: ReportedKind =
    outcome.kind === 'run' ? 'run-reported' : outcome.kind === 'reserve' ? 'reserve-reported' : 'teacher-reported';
  return reportOf(kind, outcome.report, bounds);
}
