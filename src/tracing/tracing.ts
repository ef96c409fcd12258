// OpenTelemetry tracing, optional (docs/operating.md, "Tracing"): with OTEL_EXPORTER_OTLP_ENDPOINT
// (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT) set, each process of the loop (a CLI command, every
// worker) sends its spans over OTLP/HTTP, and Temporal's interceptors carry the trace from a
// command through the workflows it starts, their children and activities to the subprocess each
// step runs. Without it nothing is set up and nothing is sent.
import { context, propagation, SpanStatusCode, trace, type Attributes } from '@opentelemetry/api';
import { OTLPTraceExporter } from '@opentelemetry/exporter-trace-otlp-http';
import { Resource } from '@opentelemetry/resources';
import { BatchSpanProcessor, NodeTracerProvider, type SpanProcessor } from '@opentelemetry/sdk-trace-node';
import {
  makeWorkflowExporter,
  OpenTelemetryActivityInboundInterceptor,
  OpenTelemetryActivityOutboundInterceptor,
  OpenTelemetryWorkflowClientInterceptor,
} from '@temporalio/interceptors-opentelemetry';
import type { ClientOptions } from '@temporalio/client';
import type { WorkerOptions } from '@temporalio/worker';

/** The name spans of the loop's own code are made under. */
const TRACER = 'champion-loop';

interface Tracing {
  readonly provider: NodeTracerProvider;
  readonly processor: SpanProcessor;
  readonly resource: Resource;
}

let tracing: Tracing | null = null;

/** Whether the environment asks for traces: an OTLP endpoint is set. */
function tracingWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return Boolean(env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT || env.OTEL_EXPORTER_OTLP_ENDPOINT);
}

/**
 * Start sending this process's spans, once, when the environment asks for it. `role` names the
 * service unless OTEL_SERVICE_NAME does: `champion-loop-cli`, `champion-loop-orchestrator`, ...
 */
export function startTracing(role: string): void {
  if (tracing !== null || !tracingWanted()) return;
  const resource = new Resource({ 'service.name': process.env.OTEL_SERVICE_NAME || `champion-loop-${role}` });
  // The exporter reads its endpoint, headers and timeout from the OTEL_EXPORTER_OTLP_* variables.
  const processor = new BatchSpanProcessor(new OTLPTraceExporter());
  const provider = new NodeTracerProvider({ resource, spanProcessors: [processor] });
  // The global provider and context manager: the active span follows async calls (AsyncLocalStorage).
  provider.register();
  tracing = { provider, processor, resource };
}

/** Where the spans go: the variable that says it, and its value. */
function collectorEndpoint(env: NodeJS.ProcessEnv = process.env): string {
  return env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT
    ? `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=${env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT}`
    : `OTEL_EXPORTER_OTLP_ENDPOINT=${env.OTEL_EXPORTER_OTLP_ENDPOINT ?? ''}`;
}

/** The one line a collector that took no spans gets: tracing is an aside, never the command's outcome. */
function collectorWarning(error: unknown, env: NodeJS.ProcessEnv = process.env): string {
  const reason = (error instanceof Error ? error.message : String(error)).split('\n')[0];
  return (
    `champion-loop: warning: the spans were not sent to the OpenTelemetry collector (${collectorEndpoint(env)}): ${reason}. ` +
    'The command itself is not affected; start the collector, or unset the variable to turn tracing off.'
  );
}

/**
 * Send what is left and stop: a command calls it before it exits, a worker when it has stopped. A
 * collector that is down or refuses (issue 48: an uncaught ECONNREFUSED and exit 1 after the
 * command had done its work) gives one warning line, never the command's exit code.
 */
export async function stopTracing(): Promise<void> {
  const stopping = tracing;
  tracing = null;
  try {
    await stopping?.provider.shutdown();
  } catch (error) {
    console.error(collectorWarning(error));
  }
}

/** A client's interceptors that start a trace's Temporal spans and carry it in the headers (none when off). */
export function clientTracing(): Pick<ClientOptions, 'interceptors'> {
  return tracing === null ? {} : { interceptors: { workflow: [new OpenTelemetryWorkflowClientInterceptor()] } };
}

/**
 * What a worker needs: the activity interceptors (each activity a span under the trace its
 * workflow carries in the activity's headers) and the sink its workflows' spans leave through
 * (src/workflows/trace-propagation.ts). With tracing off the sink drops them: a workflow started
 * by a traced command still makes its span, on a worker that sends none.
 */
export function workerTracing(): Pick<WorkerOptions, 'interceptors' | 'sinks'> {
  if (tracing === null) return { sinks: { exporter: { export: { fn: () => undefined } } } };
  return {
    interceptors: {
      activity: [
        (ctx) => ({
          inbound: new OpenTelemetryActivityInboundInterceptor(ctx),
          outbound: new OpenTelemetryActivityOutboundInterceptor(ctx),
        }),
      ],
    },
    sinks: { exporter: makeWorkflowExporter(tracing.processor, tracing.resource) },
  };
}

/**
 * Run `body` in a span of its own, a child of the active one: its error (or a non-zero exit the
 * body reports through `outcome`) marks the span failed.
 */
export async function inSpan<T>(
  name: string,
  attributes: Attributes,
  body: () => Promise<T>,
  outcome: (result: T) => { readonly attributes?: Attributes; readonly error?: string } = () => ({}),
): Promise<T> {
  if (tracing === null) return body();
  return trace.getTracer(TRACER).startActiveSpan(name, { attributes }, context.active(), async (span) => {
    try {
      const result = await body();
      const { attributes: more, error } = outcome(result);
      if (more) span.setAttributes(more);
      if (error !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: error });
      return result;
    } catch (error) {
      span.recordException(error as Error);
      span.setStatus({ code: SpanStatusCode.ERROR, message: (error as Error).message });
      throw error;
    } finally {
      span.end();
    }
  });
}

/**
 * The active span as the W3C variables a subprocess reads (TRACEPARENT, TRACESTATE: what
 * OpenTelemetry SDKs and tools that join a parent's trace take), so a trainer can add spans of
 * its own under its step; none when off.
 */
export function traceContextEnv(): Record<string, string> {
  if (tracing === null) return {};
  const carrier: Record<string, string> = {};
  propagation.inject(context.active(), carrier);
  const env: Record<string, string> = {};
  if (carrier.traceparent) env.TRACEPARENT = carrier.traceparent;
  if (carrier.tracestate) env.TRACESTATE = carrier.tracestate;
  return env;
}
