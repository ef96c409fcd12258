import { Client, Connection } from '@temporalio/client';
import { NativeConnection, Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import * as probe from '../../src/activities/probe-lane.js';
import { laneProbe } from '../../src/workflows/lane-probe.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { workflowBundle } from '../helpers/workflow-bundle.js';

describe('the test harness', () => {
  let server: TestServer;
  let connection: Connection;

  beforeAll(async () => {
    server = await startTestServer();
    connection = await Connection.connect({ address: server.address });
  });

  afterAll(async () => {
    await connection?.close();
    await server?.dispose();
  });

  it('runs a workflow whose activity runs a real subprocess on a lane queue', async () => {
    const workerConnection = await NativeConnection.connect({ address: server.address });
    const worker = await Worker.create({
      connection: workerConnection,
      namespace: server.namespace,
      taskQueue: 'harness',
      workflowBundle: await workflowBundle(),
    });
    const lane = await Worker.create({
      connection: workerConnection,
      namespace: server.namespace,
      taskQueue: 'harness.lane0',
      activities: probe,
    });
    const client = new Client({ connection, namespace: server.namespace });
    const result = await worker.runUntil(
      lane.runUntil(
        client.workflow.execute(laneProbe, {
          taskQueue: 'harness',
          workflowId: 'probe-1',
          args: [{ taskQueue: 'harness.lane0', command: [process.execPath, '-e', 'console.log("pid", process.pid)'] }],
        }),
      ),
    );
    await workerConnection.close();
    expect(result.exitCode).toBe(0);
    expect(result.output).toMatch(/^pid \d+/);
    const history = await client.workflow.getHandle('probe-1').fetchHistory();
    const kinds = history.events
      ?.map((event) => event.activityTaskScheduledEventAttributes?.activityType?.name)
      .filter(Boolean);
    expect(kinds).toEqual(['probeLane']);
  });
});
