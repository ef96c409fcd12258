import { isGrpcServiceError, type Client } from '@temporalio/client';
import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import proto from '@temporalio/proto';
import type {
  GenerationEvent,
  GenerationRunHistory,
  PackagingEvent,
  PackagingRunHistory,
} from '../ledger/history-fold.js';
import type { GivenUpRun } from '../ledger/report-fold.js';
import { CHILD_OUTCOME, type ChildOutcome } from '../activities/child-outcome.js';
import { REGISTER_CHAMPION } from '../registry/index.js';
import { loopWorkflowId, packagingWorkflowId, trainingRunWorkflowId } from '../workflows/ids.js';
import { BOUNDED_SIGNALS, GIVEN_UP_RUN_ROWS } from '../workflows/patches.js';
import type { JobInput } from '../workflows/job-input.js';
import { reserveCheck } from '../workflows/reserve-check.js';
import { teacherBuild } from '../workflows/teacher-build.js';
import { trainingRun, type TrainingRunInput } from '../workflows/training-run.js';
import { handlingOrder, type Handling } from './handling-order.js';
import {
  advanceSignal,
  advanceUpdate,
  championSignal,
  reserveReportedSignal,
  runReportedSignal,
  stopNowSignal,
  teacherReportedSignal,
} from '../workflows/messages.js';
import {
  advanceReasonOf,
  boundedReason,
  boundedRunReport,
  championWithinBounds,
  isPackageChampion,
  isReserveReport,
  isRunReport,
  isTeacherReport,
} from '../workflows/report-shapes.js';

export type HistoryEvent = proto.temporal.api.history.v1.IHistoryEvent;
// A CommonJS package: its namespace comes through the default export under plain Node ESM.
const E = proto.temporal.api.enums.v1.EventType;
const EventType = {
  taskStarted: E.EVENT_TYPE_WORKFLOW_TASK_STARTED,
  taskCompleted: E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
  marker: E.EVENT_TYPE_MARKER_RECORDED,
  activityCompleted: E.EVENT_TYPE_ACTIVITY_TASK_COMPLETED,
  activityFailed: E.EVENT_TYPE_ACTIVITY_TASK_FAILED,
  activityTimedOut: E.EVENT_TYPE_ACTIVITY_TASK_TIMED_OUT,
  signaled: E.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED,
  updateAccepted: E.EVENT_TYPE_WORKFLOW_EXECUTION_UPDATE_ACCEPTED,
  childInitiated: E.EVENT_TYPE_START_CHILD_WORKFLOW_EXECUTION_INITIATED,
  childCompleted: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_COMPLETED,
  childFailed: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_FAILED,
  childCanceled: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_CANCELED,
  childTimedOut: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TIMED_OUT,
  childTerminated: E.EVENT_TYPE_CHILD_WORKFLOW_EXECUTION_TERMINATED,
};

/** No workflow with that id: the loop was never started (or the namespace is another one). */
export class NoSuchLoopError extends Error {
  constructor(
    readonly loopId: string,
    readonly workflowId: string,
  ) {
    super(
      `no loop '${loopId}' here (no workflow ${workflowId}); check the loop id and the namespace, or start it with 'champion-loop start'` +
        `; a loop whose history is gone (retention, delete) is read from its ledger copy with --config <loop.yaml>`,
    );
    this.name = 'NoSuchLoopError';
  }
}

function decode(payloads: readonly Payload[] | null | undefined, index = 0): unknown {
  const payload = payloads?.[index];
  return payload ? defaultPayloadConverter.fromPayload(payload) : undefined;
}

function isoTime(event: HistoryEvent): string {
  const { seconds, nanos } = event.eventTime ?? {};
  return new Date(Number(seconds ?? 0) * 1000 + Math.floor((nanos ?? 0) / 1e6)).toISOString();
}

/**
 * Every run of a workflow id, oldest first, as its full history: all runs of every execution
 * (continue-as-new chains and later restarts of a stopped loop alike).
 */
export async function runChain(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  const listed: { runId: string; start: number }[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId.replace(/'/g, "\\'")}'` })) {
    listed.push({ runId: execution.runId, start: execution.startTime.getTime() });
  }
  listed.sort((a, b) => a.start - b.start);
  if (listed.length > 0) {
    return Promise.all(
      listed.map(async ({ runId }) => (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []),
    );
  }
  // Visibility can lag behind a fresh start: walk the latest execution's chain instead.
  let latest: HistoryEvent[];
  try {
    latest = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  } catch (error) {
    if (notFound(error))
      throw new NoSuchLoopError(workflowId.replace(/^champion-loop\//, '').replace(/\/packaging$/, ''), workflowId);
    throw error;
  }
  const runs: HistoryEvent[][] = [];
  let runId: string | null | undefined = latest[0]?.workflowExecutionStartedEventAttributes?.firstExecutionRunId;
  while (runId) {
    const events = (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? [];
    runs.push(events);
    runId = events[events.length - 1]?.workflowExecutionContinuedAsNewEventAttributes?.newExecutionRunId ?? null;
  }
  return runs.length > 0 ? runs : [latest];
}

/** The service knows no such workflow: fetchHistory rejects with gRPC NOT_FOUND, not a WorkflowNotFoundError. */
function notFound(error: unknown): boolean {
  const GRPC_NOT_FOUND = 5;
  return (
    (error as Error).name === 'WorkflowNotFoundError' ||
    (isGrpcServiceError(error) && Number(error.code) === GRPC_NOT_FOUND)
  );
}

/** What the history says of one run's children, by the id of the event that initiated each. */
interface RunLookups {
  /** Activity type by the id of the event that scheduled it. */
  readonly activityTypes: ReadonlyMap<string, string>;
  /** The report kind of each child started to report by its completion (patch reports-by-completion). */
  readonly reportsByCompletion: ReadonlyMap<string, ReportedKind>;
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
  return { activityTypes, reportsByCompletion };
}

/** A child's result, when it is its report: the workflow folds it as it folds a report signal. */
function completionReport(event: HistoryEvent, kind: ReportedKind | undefined): GenerationEvent | null {
  const report = decode(event.childWorkflowExecutionCompletedEventAttributes?.result?.payloads);
  switch (kind) {
    case 'run-reported':
      return isRunReport(report) ? { kind, report } : null;
    case 'teacher-reported':
      return isTeacherReport(report) ? { kind, report } : null;
    case 'reserve-reported':
      return isReserveReport(report) ? { kind, report } : null;
    default:
      return null;
  }
}

function generationEvent(
  event: HistoryEvent,
  { activityTypes, reportsByCompletion }: RunLookups,
): GenerationEvent | null {
  switch (event.eventType) {
    case EventType.childCompleted: {
      const initiated = String(event.childWorkflowExecutionCompletedEventAttributes?.initiatedEventId ?? '');
      return completionReport(event, reportsByCompletion.get(initiated));
    }
    case EventType.activityCompleted: {
      const attributes = event.activityTaskCompletedEventAttributes;
      if (activityTypes.get(String(attributes?.scheduledEventId)) !== CHILD_OUTCOME) return null;
      return childOutcomeEvent(decode(attributes?.result?.payloads) as ChildOutcome | undefined);
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
      const payloads = attributes?.input?.payloads as Payload[] | undefined;
      // A malformed report (sent by hand) is skipped, as the workflow skipped it.
      const input = decode(payloads);
      switch (attributes?.signalName) {
        case runReportedSignal.name:
          return isRunReport(input) ? { kind: 'run-reported', report: input } : null;
        case reserveReportedSignal.name:
          return isReserveReport(input) ? { kind: 'reserve-reported', report: input } : null;
        case teacherReportedSignal.name:
          return isTeacherReport(input) ? { kind: 'teacher-reported', report: input } : null;
        case advanceSignal.name:
          return { kind: 'advance', reason: advanceReasonOf(input) };
        default:
          return null;
      }
    }
    case EventType.updateAccepted: {
      const request = event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input;
      if (request?.name !== advanceUpdate.name) return null;
      const args = decode(request.args?.payloads);
      return { kind: 'advance', reason: boundedReason(advanceReasonOf(args)) };
    }
    default:
      return null;
  }
}

/** The generation workflow's runs of a loop, as the ledger fold reads them. */
export async function generationHistories(client: Client, loopId: string): Promise<GenerationRunHistory[]> {
  return (await runChain(client, loopWorkflowId(loopId))).map(generationRunOf);
}

/** What the ledger fold reads of one run of the generation workflow. */
export function generationRunOf(events: readonly HistoryEvent[]): GenerationRunHistory {
  const started = events[0]?.workflowExecutionStartedEventAttributes;
  const firstTask = events.find((event) => event.eventType === EventType.taskStarted);
  const lookups = runLookups(events);
  const givenUpRowsFrom = patchedFrom(events, GIVEN_UP_RUN_ROWS);
  const boundedFrom = patchedFrom(events, BOUNDED_SIGNALS);
  const folded = events.map((event, index): GenerationEvent | null => {
    const folded = generationEvent(event, lookups);
    // A lost child is folded as the workflow's clock read it, by code with or without given-up rows.
    if (folded?.kind === 'advance' && index > boundedFrom) return { ...folded, reason: boundedReason(folded.reason) };
    if (folded?.kind === 'run-reported' && index > boundedFrom) {
      const report = boundedRunReport(folded.report);
      return report ? { ...folded, report } : null;
    }
    return folded?.kind === 'child-lost'
      ? { ...folded, time: taskTimeAfter(events, index), givenUpRows: index > givenUpRowsFrom }
      : folded;
  });
  return {
    input: decode(started?.input?.payloads) as GenerationRunHistory['input'],
    firstTaskTime: firstTask ? isoTime(firstTask) : '',
    // In the order the workflow handled them, which is not history order within a workflow task.
    events: handlingOrder(events, (index) => handlingOf(events[index]))
      .map((index) => folded[index])
      .filter((event): event is GenerationEvent => event !== null && event !== undefined),
  };
}

function handlingOf(event: HistoryEvent | undefined): Handling {
  switch (event?.eventType) {
    case EventType.childInitiated:
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
  if (!plan || input.run !== null || input.reportRun === true) return {};
  const base = trainingRunWorkflowId(input.loopId, plan.generation, plan.round, plan.candidate.name, 1);
  const attempt = workflowId === base ? 1 : Number(workflowId.slice(base.length + 1));
  return {
    run: {
      generation: plan.generation,
      round: plan.round,
      seed: plan.seed,
      candidate: plan.candidate.name,
      runId: plan.runId,
    },
    attempt,
  };
}

/** Why a child ended without a report, as the workflow words it (generation/reports.ts, childLostWhy). */
function lostWhy(event: HistoryEvent): string {
  switch (event.eventType) {
    case EventType.childTerminated:
      return 'was terminated';
    case EventType.childCanceled:
      return 'was cancelled';
    case EventType.childTimedOut:
      return 'timed out';
    default:
      return `failed: ${event.childWorkflowExecutionFailedEventAttributes?.failure?.message ?? ''}`;
  }
}

/** The workflow's clock when it handled the event at `index`: the start of the next workflow task that completed. */
function taskTimeAfter(events: readonly HistoryEvent[], index: number): string {
  const completed = events.slice(index + 1).find((event) => event.eventType === EventType.taskCompleted);
  const startedId = String(completed?.workflowTaskCompletedEventAttributes?.startedEventId ?? '');
  const started = events.find((event) => String(event.eventId) === startedId);
  return started ? isoTime(started) : '';
}

/**
 * Events after this index were handled by code with the `patched(id)` change: the first such task
 * is the one that recorded the patch marker (Infinity when the run has none).
 */
function patchedFrom(events: readonly HistoryEvent[], id: string): number {
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

/** A child's outcome the generation asked for (a child found started already): its report, or its loss. */
function childOutcomeEvent(outcome: ChildOutcome | undefined): GenerationEvent | null {
  if (outcome?.status === 'closed') return { kind: 'child-lost', workflowId: outcome.workflowId, why: outcome.why };
  if (outcome?.status !== 'completed') return null;
  switch (outcome.kind) {
    case 'run':
      return isRunReport(outcome.report) ? { kind: 'run-reported', report: outcome.report } : null;
    case 'reserve':
      return isReserveReport(outcome.report) ? { kind: 'reserve-reported', report: outcome.report } : null;
    case 'teacher':
      return isTeacherReport(outcome.report) ? { kind: 'teacher-reported', report: outcome.report } : null;
  }
}

/** The packaging workflow's runs of a loop; none when the loop never had a champion to package. */
export async function packagingHistories(client: Client, loopId: string): Promise<PackagingRunHistory[]> {
  let runs: HistoryEvent[][];
  try {
    runs = await runChain(client, packagingWorkflowId(loopId));
  } catch (error) {
    if (error instanceof NoSuchLoopError) return [];
    throw error;
  }
  return runs.map(packagingRunOf);
}

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
    if (
      event.eventType === EventType.signaled &&
      event.workflowExecutionSignaledEventAttributes?.signalName === championSignal.name
    ) {
      const champion = decode(event.workflowExecutionSignaledEventAttributes.input?.payloads);
      // A malformed champion (sent by hand), or one over the bounds, is skipped, as the workflow skipped it.
      if (isPackageChampion(champion) && (index <= boundedFrom || championWithinBounds(champion)))
        packaging.push({ kind: 'champion', champion });
    } else if (
      event.eventType === EventType.signaled &&
      event.workflowExecutionSignaledEventAttributes?.signalName === stopNowSignal.name
    ) {
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
  return { input, events: packaging };
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
