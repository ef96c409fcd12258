import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { freePort } from '../../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';
import { inSpan, startTracing, stopTracing } from '../../src/tracing/tracing.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { STACK_FRAME } from '../helpers/files-and-errors.js';

// Issue 48, item 9: a dead tracing collector (OTEL_EXPORTER_OTLP_ENDPOINT on a closed port) ended
// every command with an uncaught `Error: connect ECONNREFUSED` stack trace and exit 1 after the
// command had done its work. Tracing is an aside: one warning line, the command's own exit code.

const BIN = path.join(PROJECT_ROOT, 'bin', 'champion-loop.js');

describe('a tracing collector that is down', () => {
  let server: TestServer;
  let closed: number;

  beforeAll(async () => {
    server = await startTestServer();
    closed = await freePort();
  });

  afterAll(async () => {
    await server?.dispose();
  });

  const cli = (args: string[], env: Record<string, string>) =>
    execa(process.execPath, [BIN, ...args, '--address', server.address, '--namespace', server.namespace], {
      reject: false,
      env,
      extendEnv: true,
    });

  it('a command ends with its own exit code and output, plus one warning line naming the variable; no stack trace', async () => {
    const args = ['status', 'no-such-loop'];
    const plain = await cli(args, { OTEL_EXPORTER_OTLP_ENDPOINT: '' });
    const traced = await cli(args, { OTEL_EXPORTER_OTLP_ENDPOINT: `http://127.0.0.1:${closed}` });
    expect(traced.exitCode).toBe(plain.exitCode);
    expect(traced.stdout).toBe(plain.stdout);
    expect(traced.stderr).not.toMatch(STACK_FRAME);
    expect(traced.stderr).not.toContain('triggerUncaughtException');
    const extra = traced.stderr.split('\n').filter((line) => line !== '' && !plain.stderr.includes(line));
    expect(extra).toEqual([
      `champion-loop: warning: the spans were not sent to the OpenTelemetry collector (OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:${closed}): ` +
        `connect ECONNREFUSED 127.0.0.1:${closed}. The command itself is not affected; start the collector, or unset the variable to turn tracing off.`,
    ]);
  });

  it('stopTracing (what every command and worker calls last) resolves and warns once', async () => {
    const before = process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
    process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = `http://127.0.0.1:${closed}/v1/traces`;
    const errors = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      startTracing('test');
      expect(await inSpan('a step', {}, () => Promise.resolve(7))).toBe(7);
      await expect(stopTracing()).resolves.toBeUndefined();
      expect(errors.mock.calls.map((call) => String(call[0]))).toEqual([
        expect.stringContaining(
          `the spans were not sent to the OpenTelemetry collector (OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=http://127.0.0.1:${closed}/v1/traces)`,
        ),
      ]);
    } finally {
      errors.mockRestore();
      if (before === undefined) delete process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT;
      else process.env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT = before;
    }
  });
});
