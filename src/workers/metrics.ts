import type { MetricMeter } from '@temporalio/common';
import { Runtime } from '@temporalio/worker';

/** The variable that turns worker metrics on when `--metrics-port` is not given. */
const METRICS_PORT_VARIABLE = 'CHAMPION_LOOP_METRICS_PORT';

/** A metrics port that is not a TCP port number. */
export class MetricsPortError extends Error {
  override readonly name = 'MetricsPortError';
}

/** The Prometheus port asked for by the flag or, failing that, the variable; null: metrics off (the default). */
export function metricsPort(flag: string | undefined, env: NodeJS.ProcessEnv = process.env): number | null {
  const [text, source] =
    flag !== undefined ? [flag, '--metrics-port'] : [env[METRICS_PORT_VARIABLE], METRICS_PORT_VARIABLE];
  if (text === undefined || text.trim() === '') return null;
  const port = Number(text);
  if (!Number.isInteger(port) || port < 1 || port > 65535) {
    throw new MetricsPortError(`${source} must be a TCP port number from 1 to 65535 (got ${JSON.stringify(text)})`);
  }
  return port;
}

/**
 * How often a worker process tells the server its slots (worker heartbeats): `status` reads them
 * to tell a lane whose every slot is busy from one nobody serves (client/busy-lanes.ts).
 */
const WORKER_HEARTBEAT_MS = 10_000;

/**
 * Install the SDK runtime of a worker process: worker heartbeats every WORKER_HEARTBEAT_MS and,
 * with a port, the SDK's worker metrics (task slots, poll and schedule-to-start latencies,
 * activity and workflow outcomes; all named `temporal_...`) for Prometheus at
 * http://HOST:PORT/metrics (returns that address; null without a port). Must run before the
 * process creates its first connection or worker: the runtime is installed once.
 */
export function installWorkerRuntime(port: number | null, host = '0.0.0.0'): string | null {
  const bindAddress = port === null ? null : `${host}:${port}`;
  try {
    Runtime.install({
      workerHeartbeatInterval: WORKER_HEARTBEAT_MS,
      ...(bindAddress === null ? {} : { telemetryOptions: { metrics: { prometheus: { bindAddress } } } }),
    });
  } catch (error) {
    if (bindAddress === null) throw error;
    throw new MetricsPortError(`cannot serve worker metrics on ${bindAddress}: ${(error as Error).message}`);
  }
  served = bindAddress !== null;
  return bindAddress;
}

let served = false;

/** The runtime's meter when installWorkerRuntime serves it (the loop's own metrics go there too); null: metrics off. */
export function servedMetricMeter(): MetricMeter | null {
  return served ? Runtime.instance().metricMeter : null;
}
