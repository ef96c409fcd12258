import { WorkflowFailedError, type Client, type Connection } from '@temporalio/client';
import {
  ApplicationFailure,
  CancelledFailure,
  RetryState,
  TerminatedFailure,
  TimeoutFailure,
} from '@temporalio/common';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { connectClient } from '../../src/client/connect.js';
import { endedByError, endedByStatus, loopClosed, loopEndedLine, loopResult } from '../../src/client/loop-end.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';

// How `npm run demo` ends when its loop ends under it: one line saying how and what to do next,
// never a WorkflowFailedError. The pure part, then the real thing: a loop terminated with the
// `temporal` CLI, as a user (or the Web UI's Terminate button) does it.

const failed = (cause: Error) =>
  new WorkflowFailedError('Workflow execution failed', cause, RetryState.NON_RETRYABLE_FAILURE);

describe('a loop ending under a waiting client', () => {
  it('each way a workflow closes becomes how the loop ended; a running one is none', () => {
    expect(endedByStatus('TERMINATED')).toBe('terminated');
    expect(endedByStatus('CANCELLED')).toBe('cancelled');
    expect(endedByStatus('FAILED')).toBe('failed');
    expect(endedByStatus('TIMED_OUT')).toBe('timed out');
    expect(endedByStatus('COMPLETED')).toBe('stopped');
    expect(endedByStatus('RUNNING')).toBeNull();
    expect(endedByStatus('CONTINUED_AS_NEW')).toBeNull();
  });

  it('what result() throws becomes how the loop ended, with the reason given; other errors are not an end', () => {
    expect(endedByError(failed(new TerminatedFailure('Workflow execution terminated')))).toEqual({
      kind: 'ended',
      how: 'terminated',
    });
    expect(endedByError(failed(new TerminatedFailure('disk replaced')))).toEqual({
      kind: 'ended',
      how: 'terminated',
      reason: 'disk replaced',
    });
    expect(endedByError(failed(new CancelledFailure('Workflow canceled')))).toEqual({
      kind: 'ended',
      how: 'cancelled',
    });
    expect(endedByError(failed(new TimeoutFailure('timed out', undefined, 'START_TO_CLOSE')))).toEqual({
      kind: 'ended',
      how: 'timed out',
    });
    expect(endedByError(failed(ApplicationFailure.create({ message: 'boom' })))).toEqual({
      kind: 'ended',
      how: 'failed',
      reason: 'boom',
    });
    expect(endedByError(new Error('no Temporal server answers'))).toBeNull();
  });

  it('one line: the loop, how it ended, its workflow, and how to go on', () => {
    const line = loopEndedLine(
      'demo',
      { kind: 'ended', how: 'terminated', reason: 'disk replaced' },
      "run 'npm run demo' again to resume it where it was",
    );
    expect(line).toBe(
      "loop demo (workflow champion-loop/demo) was terminated before its generation turned over (reason: disk replaced); run 'npm run demo' again to resume it where it was",
    );
    expect(line).not.toContain('\n');
  });

  describe('on a real server', () => {
    let server: TestServer;
    let client: Client;
    let connection: Connection;

    beforeAll(async () => {
      server = await startTestServer();
      ({ client, connection } = await connectClient({ address: server.address, namespace: server.namespace }));
    });

    afterAll(async () => {
      await connection?.close();
      await server?.dispose();
    });

    it('a loop terminated with `temporal workflow terminate` while a client waits: terminated, no throw', async () => {
      // No worker polls this queue: the loop's workflow just stands there, as a running one does to a client.
      await client.workflow.start('generation', {
        workflowId: loopWorkflowId('cut'),
        taskQueue: 'champion-loop-test.nobody',
        args: [{ loopId: 'cut' }],
      });
      expect(await loopClosed(client, 'cut')).toBeNull();
      const waiting = loopResult(client, 'cut');
      const terminated = await execa(
        inject('temporalCli'),
        [
          'workflow',
          'terminate',
          '--workflow-id',
          loopWorkflowId('cut'),
          '--address',
          server.address,
          '--namespace',
          server.namespace,
        ],
        { reject: false },
      );
      expect(terminated.exitCode, terminated.stderr).toBe(0);
      const end = await waiting;
      expect(end).toMatchObject({ kind: 'ended', how: 'terminated' });
      expect(await loopClosed(client, 'cut')).toEqual(end);
      if (end.kind !== 'ended') throw new Error('not ended');
      expect(loopEndedLine('cut', end, 'go on')).toMatch(
        /^loop cut \(workflow champion-loop\/cut\) was terminated before its generation turned over( \(reason: Requested from CLI by .*\))?; go on$/,
      );
    });

    it('a terminate reason is in the line', async () => {
      const handle = await client.workflow.start('generation', {
        workflowId: loopWorkflowId('why'),
        taskQueue: 'champion-loop-test.nobody',
        args: [{ loopId: 'why' }],
      });
      await handle.terminate('disk replaced');
      expect(await loopResult(client, 'why')).toEqual({ kind: 'ended', how: 'terminated', reason: 'disk replaced' });
    });
  });
});
