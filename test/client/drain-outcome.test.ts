import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { laneQueue } from '../../src/config/lanes.js';
import { drainCommand, startWorkerProcess, type WorkerProcess } from '../helpers/worker-processes.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { STACK_FRAME } from '../helpers/files-and-errors.js';

// Issue 48, item 7: `worker gpu --drain`, then SIGTERM to the lane's worker: the drain printed
// "drained ... exited after 1 s" and exit 0, though the worker was stopped and its running job
// cancelled. The drain says how the worker ended: drained (exit 0), or stopped by a signal, or
// gone without a word (kill -9, a crash), with exit 1.

/** Whether `signal` waits, sent to `pid` and not yet taken (the process is stopped). */
async function pending(pid: number, signal: number): Promise<boolean> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8');
  const mask = BigInt(`0x${/^ShdPnd:\s*([0-9a-f]+)/m.exec(status)?.[1] ?? '0'}`);
  return (mask & (1n << BigInt(signal - 1))) !== 0n;
}

const SIGUSR2 = 12;

describe('worker gpu --drain says how the worker ended', () => {
  let server: TestServer;
  let runtime: string;
  let device = 0;

  beforeAll(async () => {
    server = await startTestServer();
    // The lanes' pid files (and end records) in a folder of this test's own.
    runtime = await mkdtemp(path.join(tmpdir(), 'champion-loop-drain-'));
  });

  afterAll(async () => {
    await server?.dispose();
    await rm(runtime, { recursive: true, force: true });
  });

  /** A lane worker of its own device, and the drain command for it. */
  const lane = async () => {
    const which = { kind: 'gpu' as const, host: 'drain-test', device: (device += 1) };
    const env = { XDG_RUNTIME_DIR: runtime };
    const worker: WorkerProcess = await startWorkerProcess(which, {
      address: server.address,
      namespace: server.namespace,
      env,
    });
    return { worker, drain: () => drainCommand(which, { env }), queue: laneQueue(which.host, which.device) };
  };

  /**
   * Stop the worker (SIGSTOP), start the drain, and once its SIGUSR2 waits at the worker, `then`
   * (what else the worker gets) and SIGCONT: the worker takes the drain first, then the rest.
   */
  const drainThen = async (worker: WorkerProcess, drain: () => ReturnType<typeof drainCommand>, then: () => void) => {
    worker.signal('SIGSTOP');
    const drained = drain();
    await vi.waitFor(async () => expect(await pending(worker.pid, SIGUSR2)).toBe(true), {
      timeout: 30_000,
      interval: 100,
    });
    then();
    worker.signal('SIGCONT');
    return drained;
  };

  it('a drain that ends as a drain: "drained", exit 0', async () => {
    const { worker, drain } = await lane();
    const drained = await drain();
    expect(drained.exitCode, drained.output).toBe(0);
    expect(drained.output).toMatch(/ drained: its worker exited after \d+ s$/m);
    expect(await worker.exited).toMatchObject({ exitCode: 0 });
  });

  it('SIGTERM to the worker during the drain: the drain says it was stopped by SIGTERM, not drained; exit 1', async () => {
    const { worker, drain, queue } = await lane();
    const drained = await drainThen(worker, drain, () => worker.signal('SIGTERM'));
    expect(drained.exitCode, drained.output).toBe(1);
    expect(drained.output).not.toMatch(/ drained: /);
    expect(drained.output).toMatch(
      new RegExp(
        `${queue} did not drain: its worker \\(pid ${worker.pid}\\) was stopped by SIGTERM \\d+ s into the drain`,
      ),
    );
    expect(drained.output).toContain('no job was running then');
    expect(drained.output).not.toMatch(STACK_FRAME);
  });

  it('kill -9 of the worker during the drain: the drain says it ended without saying how; exit 1', async () => {
    const { worker, drain, queue } = await lane();
    const drained = await drainThen(worker, drain, () => worker.signal('SIGKILL'));
    expect(drained.exitCode, drained.output).toBe(1);
    expect(drained.output).toContain(`${queue} did not drain: its worker (pid ${worker.pid}) ended without saying how`);
    expect(drained.output).toContain('SIGKILL');
  });
});
