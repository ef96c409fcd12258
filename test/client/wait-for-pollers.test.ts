import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuesUnpolled, queuesWithoutPoller, waitForPollers, type LoopQueue } from '../../src/client/pollers.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// `npm run demo` waits for the workers it started before it watches (issue 23: its first lines
// said no worker polls any queue, a second before they did). Against a real dev server.

describe('waiting for the workers just started', () => {
  let server: TestServer;
  let connection: Connection;
  let native: NativeConnection;
  let client: Client;

  beforeAll(async () => {
    server = await startTestServer();
    connection = await Connection.connect({ address: server.address });
    native = await NativeConnection.connect({ address: server.address });
    client = new Client({ connection, namespace: server.namespace });
  });

  afterAll(async () => {
    await native?.close();
    await connection?.close();
    await server?.dispose();
  });

  it('resolves once a worker polls each queue, and not before', async () => {
    const queues: LoopQueue[] = [{ queue: 'wait-for-pollers.lane0', kind: 'lane' }];
    expect(await queuesWithoutPoller(client, queues)).toEqual(queues);
    let polled = false;
    const waiting = waitForPollers(client, queues, { gone: () => null }).then(() => (polled = true));
    const worker = await Worker.create({
      connection: native,
      namespace: server.namespace,
      taskQueue: 'wait-for-pollers.lane0',
      activities: { noop: () => Promise.resolve() },
    });
    // Not polled before the worker runs.
    expect(polled).toBe(false);
    await worker.runUntil(waiting);
    expect(polled).toBe(true);
    expect(await queuesWithoutPoller(client, queues)).toEqual([]);
  });

  it("start's notes (issue 47): a queue no worker ever polled is named only after the grace a starting worker needs; a worker that starts within it is waited for, and nothing is named", async () => {
    const nobody: LoopQueue[] = [{ queue: 'wait-for-pollers.never', kind: 'lane' }];
    const asked = Date.now();
    const said: string[] = [];
    expect(
      await queuesUnpolled(client, nobody, { graceMs: 1_500, intervalMs: 100, onWait: (line) => said.push(line) }),
    ).toEqual(nobody);
    expect(Date.now() - asked).toBeGreaterThanOrEqual(1_500);
    expect(said).toEqual(['no worker has polled wait-for-pollers.never yet; waiting up to 2 s for one just started']);

    const starting: LoopQueue[] = [{ queue: 'wait-for-pollers.starting', kind: 'lane' }];
    let answered = false;
    const notes = queuesUnpolled(client, starting, { graceMs: 120_000, intervalMs: 100 }).then((left) => {
      answered = true;
      return left;
    });
    // The worker is created only now (as an orchestrator bundles its workflows first): no note yet.
    const worker = await Worker.create({
      connection: native,
      namespace: server.namespace,
      taskQueue: 'wait-for-pollers.starting',
      activities: { noop: () => Promise.resolve() },
    });
    expect(answered).toBe(false);
    await worker.runUntil(notes);
    expect(await notes).toEqual([]);
  });

  it('rejects with the reason a worker will never poll (its process exited)', async () => {
    const queues: LoopQueue[] = [{ queue: 'wait-for-pollers.nobody', kind: 'lane' }];
    let checks = 0;
    await expect(
      waitForPollers(client, queues, {
        gone: () => (++checks >= 3 ? 'worker lane-0 exited with code 1: see .temporal/demo/lane-0.log' : null),
        intervalMs: 10,
      }),
    ).rejects.toThrow('worker lane-0 exited with code 1: see .temporal/demo/lane-0.log');
  });
});
