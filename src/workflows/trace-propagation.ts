// The workflow interceptors in every workflow bundle (docs/operating.md, "Tracing"): they carry a
// trace from the command that started a workflow run (or advanced the generation into it) to the
// activities, children and next run that run starts, as the `_tracer-data` header OpenTelemetry's
// client and activity interceptors read and write. They copy a header and do nothing else: no
// span, no await, no sink. (Temporal's own OpenTelemetry workflow interceptors yield where this
// code does not, which reorders concurrent commands: the recorded histories failed to replay.)
import type { Headers, Payload, WorkflowInterceptorsFactory } from '@temporalio/workflow';
import { advanceSignal, advanceUpdate } from './messages.js';

/** The header OpenTelemetry's Temporal interceptors keep a span context in. */
export const TRACE_HEADER = '_tracer-data';

export const interceptors: WorkflowInterceptorsFactory = () => {
  // The trace of the command that started this run, and of an advance that opens the next one.
  let started: Payload | undefined;
  let advanced: Payload | undefined;
  const traced = <T extends { readonly headers: Headers }>(input: T, trace = started): T =>
    trace === undefined ? input : { ...input, headers: { ...input.headers, [TRACE_HEADER]: trace } };
  return {
    inbound: [
      {
        execute: (input, next) => {
          started = input.headers[TRACE_HEADER];
          return next(input);
        },
        handleUpdate: (input, next) => {
          if (input.name === advanceUpdate.name) advanced = input.headers[TRACE_HEADER] ?? advanced;
          return next(input);
        },
        handleSignal: (input, next) => {
          if (input.signalName === advanceSignal.name) advanced = input.headers[TRACE_HEADER] ?? advanced;
          return next(input);
        },
      },
    ],
    outbound: [
      {
        scheduleActivity: (input, next) => next(traced(input)),
        scheduleLocalActivity: (input, next) => next(traced(input)),
        startChildWorkflowExecution: (input, next) => next(traced(input)),
        continueAsNew: (input, next) => next(traced(input, advanced ?? started)),
      },
    ],
  };
};
