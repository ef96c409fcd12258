// The workflow interceptors in every workflow bundle (docs/operating.md, "Tracing"). A workflow
// run started (or advanced into) by a traced command is a span of its own, `RunWorkflow:<type>`,
// under the client's span; the run carries its span to the activities, children and next run it
// starts, as the `_tracer-data` header OpenTelemetry's client and activity interceptors read and
// write. Nothing here awaits or issues a command: the span ids come from the run id, its times
// from the workflow's clock, and the span goes out through the `exporter` sink when the run ends
// (sinks are not called on replay). Temporal's own OpenTelemetry workflow interceptors yield where
// this code does not, which reorders concurrent commands: the recorded histories failed to replay.
import {
  ContinueAsNew,
  defaultPayloadConverter,
  isCancellation,
  proxySinks,
  workflowInfo,
  type Headers,
  type Payload,
  type Sinks,
  type WorkflowInterceptorsFactory,
} from '@temporalio/workflow';
import { advanceSignal, advanceUpdate } from './messages.js';

/** The header OpenTelemetry's Temporal interceptors keep a span context in. */
const TRACE_HEADER = '_tracer-data';

interface TraceContext {
  readonly traceId: string;
  readonly spanId: string;
  readonly traceFlags: number;
}

/** A span as the `exporter` sink takes it (what @temporalio/interceptors-opentelemetry's makeWorkflowExporter reads). */
interface ExportedSpan {
  readonly name: string;
  readonly kind: number;
  readonly spanContext: TraceContext & { readonly isRemote: boolean };
  readonly parentSpanId: string;
  readonly startTime: [number, number];
  readonly endTime: [number, number];
  readonly duration: [number, number];
  readonly status: { readonly code: number; readonly message?: string };
  readonly attributes: Record<string, string | boolean>;
  readonly links: never[];
  readonly events: never[];
  readonly ended: true;
  readonly droppedAttributesCount: 0;
  readonly droppedLinksCount: 0;
  readonly droppedEventsCount: 0;
  readonly instrumentationLibrary: { readonly name: string };
}

interface TraceSinks extends Sinks {
  exporter: { export(spans: ExportedSpan[]): void };
}

/** The W3C trace context a header holds, or undefined (none, or not one). */
function traceIn(payload: Payload | undefined): TraceContext | undefined {
  if (payload === undefined) return undefined;
  try {
    const carrier = defaultPayloadConverter.fromPayload<Record<string, string>>(payload);
    const match = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/.exec(carrier.traceparent ?? '');
    if (match === null) return undefined;
    return { traceId: match[1] ?? '', spanId: match[2] ?? '', traceFlags: parseInt(match[3] ?? '0', 16) };
  } catch {
    return undefined;
  }
}

function headerOf(trace: TraceContext): Payload {
  const flags = trace.traceFlags.toString(16).padStart(2, '0');
  return defaultPayloadConverter.toPayload({ traceparent: `00-${trace.traceId}-${trace.spanId}-${flags}` });
}

const hrTime = (ms: number): [number, number] => [Math.floor(ms / 1000), (ms % 1000) * 1e6];

/** Why a run ended, as a span status: OK (1) when it completed or continued as new, else ERROR (2). */
function endStatus(error: unknown): ExportedSpan['status'] {
  if (error === undefined || error instanceof ContinueAsNew) return { code: 1 };
  if (isCancellation(error)) return { code: 2, message: 'cancelled' };
  return { code: 2, message: (error as Error).message };
}

export const interceptors: WorkflowInterceptorsFactory = () => {
  // The header this run was started with (the command's span), this run's own span, and the
  // header of an advance, which the generation it opens (the next run) is started under.
  let startedWith: Payload | undefined;
  let span: TraceContext | undefined;
  let advancedWith: Payload | undefined;
  const traced = <T extends { readonly headers: Headers }>(input: T, header: Payload | undefined): T =>
    header === undefined ? input : { ...input, headers: { ...input.headers, [TRACE_HEADER]: header } };
  const ownHeader = (): Payload | undefined => (span === undefined ? startedWith : headerOf(span));

  function exportRunSpan(parent: TraceContext, error?: unknown): void {
    if (span === undefined) return;
    const info = workflowInfo();
    const start = info.runStartTime.getTime();
    const end = Math.max(start, Date.now());
    proxySinks<TraceSinks>().exporter.export([
      {
        name: `RunWorkflow:${info.workflowType}`,
        kind: 0,
        spanContext: { ...span, isRemote: false },
        parentSpanId: parent.spanId,
        startTime: hrTime(start),
        endTime: hrTime(end),
        duration: hrTime(end - start),
        status: endStatus(error),
        attributes: {
          temporalWorkflowId: info.workflowId,
          run_id: info.runId,
          ...(error instanceof ContinueAsNew ? { 'champion_loop.continued_as_new': true } : {}),
        },
        links: [],
        events: [],
        ended: true,
        droppedAttributesCount: 0,
        droppedLinksCount: 0,
        droppedEventsCount: 0,
        instrumentationLibrary: { name: 'champion-loop' },
      },
    ]);
  }

  return {
    inbound: [
      {
        execute: (input, next) => {
          startedWith = input.headers[TRACE_HEADER];
          const parent = traceIn(startedWith);
          // The run's span id: the random end of its run id (a UUID), so a replay makes the same one.
          if (parent !== undefined)
            span = { ...parent, spanId: workflowInfo().runId.replace(/-/g, '').slice(-16).padStart(16, '0') };
          const running = next(input);
          if (parent !== undefined)
            running.then(
              () => exportRunSpan(parent),
              (error: unknown) => exportRunSpan(parent, error),
            );
          return running;
        },
        handleUpdate: (input, next) => {
          if (input.name === advanceUpdate.name) advancedWith = input.headers[TRACE_HEADER] ?? advancedWith;
          return next(input);
        },
        handleSignal: (input, next) => {
          if (input.signalName === advanceSignal.name) advancedWith = input.headers[TRACE_HEADER] ?? advancedWith;
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next(traced(input, ownHeader())),
        scheduleLocalActivity: (input, next) => next(traced(input, ownHeader())),
        startChildWorkflowExecution: (input, next) => next(traced(input, ownHeader())),
        // The next run of a generation: under the advance that opened it, else beside this one, under its command.
        continueAsNew: (input, next) => next(traced(input, advancedWith ?? startedWith)),
      },
    ],
  };
};
