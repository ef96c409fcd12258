import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queuesWithoutPoller, waitForPollers, type LoopQueue } from '../../src/client/pollers.js';
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
