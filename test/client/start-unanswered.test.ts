import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client, Connection } from '@temporalio/client';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startLoop } from '../../src/client/loop-start.js';
import { loopQueues, queuesWithoutPoller, startInputOf } from '../../src/client/pollers.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { ORCHESTRATOR_QUEUE } from '../../src/workflows/queues.js';
import { writeLoopFolder } from '../helpers/loop-harness.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// `start` sends the start and the `start` update in one call and waits for the run's answer. An
// orchestrator that polls but never answers (killed a moment after it took the loop's first
// workflow task, or stalled) leaves the answer out: the start tells from the run's input, whose
// start token is its own, that it started the loop, and says so without a view.
describe('a start no orchestrator answers', () => {
  let server: TestServer;
  let connection: Connection;
  let dir: string;

  beforeAll(async () => {
    server = await startTestServer();
    connection = await Connection.connect({ address: server.address });
    dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-unanswered-'));
  });

  afterAll(async () => {
    await connection?.close();
    await server?.dispose();
    await rm(dir, { recursive: true, force: true });
  });

  it('is told from the run it started, by its token: started, no view', async () => {
    const client = new Client({ connection, namespace: server.namespace });
    const { config } = await writeLoopFolder(dir, { candidates: [{ name: 'a' }] });
    // A poller of the orchestrator queue that takes the loop's first workflow task and never answers it.
    // A long poll needs a deadline (the SDK's workers give theirs 70 s); the test is over well before it.
    const taken = connection
      .withDeadline(Date.now() + 70_000, () =>
        client.workflowService.pollWorkflowTaskQueue({
          namespace: server.namespace,
          taskQueue: { name: ORCHESTRATOR_QUEUE },
          identity: 'a stalled orchestrator',
        }),
      )
      .catch(() => null);
    await vi.waitFor(async () => expect(await queuesWithoutPoller(client, loopQueues([], false))).toEqual([]), {
      timeout: 30_000,
      interval: 250,
    });

    const outcome = await startLoop(client, 'unanswered', config, { answerWithinMs: 3_000 });
    expect(outcome).toMatchObject({ kind: 'started', workflowId: loopWorkflowId('unanswered'), unanswered: true });
    expect(outcome.kind === 'started' ? outcome.view : 'not started').toBeUndefined();
    // The stalled poller did take the run's first task (with the update), and the run holds a start token.
    expect((await taken)?.workflowExecution?.workflowId).toBe(loopWorkflowId('unanswered'));
    expect((await startInputOf(client, 'unanswered'))?.startToken).toMatch(/^[0-9a-f-]{36}$/);
    await client.workflow.getHandle(loopWorkflowId('unanswered')).terminate('test over');
  });
});
