// A real OTLP receiver and trace store for a test file: Jaeger v2 (built from source in the
// background by `npm test`, scripts/tracing/provision.ts; waited for here) on localhost ports of its own, traces kept in memory, read back
// through its query API.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { stringify } from 'yaml';
import { freePort } from '../../src/devserver/dev-server.js';
import { ensureJaeger } from '../../scripts/tracing/provision.js';

/** One span as Jaeger's query API returns it, with its service and tags read out. */
export interface StoredSpan {
  readonly spanId: string;
  readonly parentId: string | null;
  readonly name: string;
  readonly service: string;
  readonly tags: Readonly<Record<string, unknown>>;
  readonly error: boolean;
}

export interface JaegerServer {
  /** What a process needs in its environment to send its spans here (OTLP over HTTP). */
  readonly env: Readonly<Record<string, string>>;
  /** The ids of the traces a service sent, with an operation of this name. */
  traceIds(service: string, operation: string): Promise<string[]>;
  /** Every span of a trace, from every service. */
  spans(traceId: string): Promise<StoredSpan[]>;
  dispose(): Promise<void>;
}

interface ApiTrace {
  readonly traceID: string;
  readonly spans: readonly {
    readonly spanID: string;
    readonly operationName: string;
    readonly processID: string;
    readonly references?: readonly { readonly refType: string; readonly spanID: string }[];
    readonly tags?: readonly { readonly key: string; readonly value: unknown }[];
  }[];
  readonly processes: Readonly<Record<string, { readonly serviceName: string }>>;
}

/** How long a caller's hook may wait for Jaeger's build (one under way, or one it makes itself). */
export const JAEGER_BUILD_MS = 45 * 60_000;

export async function startJaeger(): Promise<JaegerServer> {
  const jaeger = await ensureJaeger((line) => console.error(`[provision] ${line}`));
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-jaeger-'));
  const [query, queryGrpc, otlp] = [await freePort(), await freePort(), await freePort()];
  const config = path.join(dir, 'config.yaml');
  await writeFile(
    config,
    stringify({
      service: {
        extensions: ['jaeger_storage', 'jaeger_query'],
        pipelines: {
          traces: { receivers: ['otlp'], processors: ['batch'], exporters: ['jaeger_storage_exporter'] },
        },
        telemetry: { metrics: { level: 'none' }, logs: { level: 'warn' } },
      },
      extensions: {
        jaeger_query: {
          storage: { traces: 'memstore' },
          http: { endpoint: `127.0.0.1:${query}` },
          grpc: { endpoint: `127.0.0.1:${queryGrpc}` },
        },
        jaeger_storage: { backends: { memstore: { memory: { max_traces: 100_000 } } } },
      },
      receivers: { otlp: { protocols: { http: { endpoint: `127.0.0.1:${otlp}` } } } },
      processors: { batch: { timeout: '100ms' } },
      exporters: { jaeger_storage_exporter: { trace_storage: 'memstore' } },
    }),
  );
  let output = '';
  const child: ChildProcess = spawn(jaeger, [`--config=file:${config}`], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const api = `http://127.0.0.1:${query}/api`;
  const get = async <T>(url: string): Promise<T> => {
    const response = await fetch(url, { signal: AbortSignal.timeout(5_000) });
    if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
    return ((await response.json()) as { data: T }).data;
  };
  for (let waited = 0; ; waited += 250) {
    if (child.exitCode !== null) throw new Error(`jaeger exited (${child.exitCode}) at its start:\n${output}`);
    if (
      await get(`${api}/services`).then(
        () => true,
        () => false,
      )
    )
      break;
    if (waited > 30_000) throw new Error(`jaeger did not answer within 30 s:\n${output}`);
    await sleep(250);
  }
  return {
    env: {
      OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${otlp}`,
      // Spans leave each process within a fifth of a second, not the SDK's default 5 s.
      OTEL_BSP_SCHEDULE_DELAY: '200',
    },
    async traceIds(service, operation) {
      const traces = await get<ApiTrace[] | null>(
        `${api}/traces?service=${encodeURIComponent(service)}&operation=${encodeURIComponent(operation)}&lookback=1h&limit=100`,
      );
      return (traces ?? []).map((trace) => trace.traceID);
    },
    async spans(traceId) {
      const [trace] = await get<ApiTrace[]>(`${api}/traces/${traceId}`);
      if (trace === undefined) return [];
      return trace.spans.map((span) => {
        const tags = Object.fromEntries((span.tags ?? []).map((tag) => [tag.key, tag.value]));
        return {
          spanId: span.spanID,
          parentId: span.references?.find((reference) => reference.refType === 'CHILD_OF')?.spanID ?? null,
          name: span.operationName,
          service: trace.processes[span.processID]?.serviceName ?? '',
          tags,
          error: tags.error === true || tags['otel.status_code'] === 'ERROR',
        };
      });
    },
    async dispose() {
      child.kill('SIGKILL');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
