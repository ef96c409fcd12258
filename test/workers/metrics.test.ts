import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/devserver/dev-server.js';
import { metricsPort, MetricsPortError } from '../../src/workers/metrics.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

const BIN = fileURLToPath(new URL('../../bin/champion-loop.js', import.meta.url));

describe('the metrics port setting', () => {
  it('is off by default, taken from the flag, else from CHAMPION_LOOP_METRICS_PORT', () => {
    expect(metricsPort(undefined, {})).toBeNull();
    expect(metricsPort(undefined, { CHAMPION_LOOP_METRICS_PORT: '' })).toBeNull();
    expect(metricsPort('9464', { CHAMPION_LOOP_METRICS_PORT: '9000' })).toBe(9464);
    expect(metricsPort(undefined, { CHAMPION_LOOP_METRICS_PORT: '9000' })).toBe(9000);
  });

  it('must be a TCP port, and the error names where it came from', () => {
    expect(() => metricsPort('abc', {})).toThrow(MetricsPortError);
    expect(() => metricsPort('0', {})).toThrow(/--metrics-port must be a TCP port number/);
    expect(() => metricsPort(undefined, { CHAMPION_LOOP_METRICS_PORT: '70000' })).toThrow(
      /CHAMPION_LOOP_METRICS_PORT must be a TCP port number .*"70000"/,
    );
  });
});

describe('a worker with metrics on', () => {
  let server: TestServer;
  const workers: ResultPromise[] = [];

  beforeAll(async () => {
    server = await startTestServer();
  });

  afterAll(async () => {
    for (const worker of workers) worker.kill('SIGKILL');
    await Promise.allSettled(workers);
    await server?.dispose();
  });

  /** Start `champion-loop worker package` in a process of its own (the SDK runtime is installed once per process). */
  async function startWorker(
    args: readonly string[],
    env: Record<string, string> = {},
  ): Promise<{ worker: ResultPromise; banner: string }> {
    const worker = execa(
      process.execPath,
      [BIN, 'worker', 'package', ...args, '--address', server.address, '--namespace', server.namespace],
      {
        env,
        reject: false,
        buffer: false,
      },
    );
    workers.push(worker);
    const banner = await new Promise<string>((resolve, reject) => {
      let seen = '';
      worker.stdout?.on('data', (chunk: Buffer) => {
        seen += chunk.toString();
        const line = seen.split('\n').find((text) => text.startsWith('package worker connected'));
        if (line) resolve(line);
      });
      void worker.then((result) =>
        reject(new Error(`the worker exited (${result.exitCode}) before it connected: ${seen}`)),
      );
    });
    return { worker, banner };
  }

  async function scrape(port: number): Promise<string> {
    const deadline = Date.now() + 15_000;
    for (;;) {
      const text = await fetch(`http://127.0.0.1:${port}/metrics`).then(
        (response) => response.text(),
        () => '',
      );
      if (/^temporal_num_pollers\{/m.test(text) || Date.now() > deadline) return text;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }

  it('serves the SDK metrics for Prometheus on --metrics-port, and stops on SIGTERM', async () => {
    const port = await freePort();
    const { worker, banner } = await startWorker(['--metrics-port', String(port)]);
    expect(banner).toContain(`metrics at http://0.0.0.0:${port}/metrics`);
    const text = await scrape(port);
    expect(text).toMatch(/^# TYPE temporal_\w+ /m);
    expect(text).toMatch(/^temporal_worker_start\{[^}]*task_queue="champion-loop.package"[^}]*\} 1$/m);
    expect(text).toMatch(/^temporal_num_pollers\{[^}]*poller_type="activity_task"[^}]*\} \d+$/m);
    expect(text).toMatch(/^temporal_request\{[^}]*operation="GetSystemInfo"/m);
    worker.kill('SIGTERM');
    expect((await worker).exitCode).toBe(0);
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow();
  });

  it('takes the port from CHAMPION_LOOP_METRICS_PORT when the flag is absent', async () => {
    const port = await freePort();
    const { worker, banner } = await startWorker([], { CHAMPION_LOOP_METRICS_PORT: String(port) });
    expect(banner).toContain(`metrics at http://0.0.0.0:${port}/metrics`);
    expect(await scrape(port)).toMatch(/^temporal_worker_start\{/m);
    worker.kill('SIGTERM');
    await worker;
  });

  it('says so when the port is taken', async () => {
    const port = await freePort();
    const { worker } = await startWorker(['--metrics-port', String(port)]);
    const second = await execa(
      process.execPath,
      [BIN, 'worker', 'package', '--metrics-port', String(port), '--address', server.address],
      { reject: false, timeout: 30_000 },
    );
    expect(second.exitCode).toBe(1);
    expect(second.stderr).toContain(`cannot serve worker metrics on 0.0.0.0:${port}`);
    worker.kill('SIGTERM');
    await worker;
  });
});
