import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createOrchestratorWorker, runOrchestrator } from '../../src/workers/orchestrator-worker.js';
import { startTestServer, type TestServer } from '../helpers/test-server.js';
import { workflowBundle } from '../helpers/workflow-bundle.js';

// Issue 48, item 4: with Worker Versioning, build B current, an orchestrator of the older build A
// restarted (to finish the runs pinned to A, as docs/operating.md tells) made A current again,
// said only in its own log: a rollback nobody asked for. An older build leaves the current version
// alone, says why and how to roll back on purpose; with `makeCurrent` (`--make-current`) it takes it.

describe('an older build of the orchestrator, restarted', () => {
  let server: TestServer;
  let native: NativeConnection;
  const running: { worker: Worker; run: Promise<void> }[] = [];

  beforeAll(async () => {
    server = await startTestServer();
    native = await NativeConnection.connect({ address: server.address });
  });

  afterAll(async () => {
    for (const { worker, run } of running) {
      if (worker.getState() === 'RUNNING') worker.shutdown();
      await run.catch(() => undefined);
    }
    await native?.close();
    await server?.dispose();
  });

  const current = async (): Promise<string | null> => {
    const { workerDeploymentInfo } = await native.workflowService.describeWorkerDeployment({
      namespace: server.namespace,
      deploymentName: 'champion-loop',
    });
    return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? null;
  };

  /** Start an orchestrator of `buildId`; resolves once it became current or said why not. */
  const start = async (buildId: string, makeCurrent = false) => {
    const worker = await createOrchestratorWorker({
      connection: native,
      namespace: server.namespace,
      workflowBundle: await workflowBundle(),
      buildId,
      versioned: true,
    });
    let told: (outcome: { became?: string | null; left?: string }) => void = () => undefined;
    const outcome = new Promise<{ became?: string | null; left?: string }>((resolve) => (told = resolve));
    const run = runOrchestrator(worker, native, server.namespace, (was) => told({ became: was }), {
      makeCurrent,
      onLeft: (line) => told({ left: line }),
    });
    running.push({ worker, run });
    void run.catch((error: unknown) => told({ left: `failed: ${(error as Error).message}` }));
    return { worker, run, outcome: await outcome };
  };

  const stop = async (entry: { worker: Worker; run: Promise<void> }) => {
    entry.worker.shutdown();
    await entry.run;
  };

  it('a new build takes over; the old one restarted leaves it, says why and how to roll back; --make-current rolls back', async () => {
    const a = await start('aaa111');
    expect(a.outcome).toEqual({ became: null });
    const b = await start('bbb222');
    expect(b.outcome).toEqual({ became: 'aaa111' });
    expect(await current()).toBe('bbb222');

    // A's orchestrator stops and starts again (a restart, a host reboot): B stays current.
    await stop(a);
    const again = await start('aaa111');
    expect(again.outcome.left).toBe(
      'build aaa111 does not take the current version of worker deployment champion-loop back from bbb222: ' +
        'it was current before and bbb222 replaced it. It serves the runs started on aaa111 until they are done ' +
        '(new workflows and generations run on bbb222). To roll back to aaa111 on purpose, restart it with: ' +
        'champion-loop worker orchestrator --make-current',
    );
    expect(await current()).toBe('bbb222');
    // It keeps polling (the runs pinned to it need it).
    expect(again.worker.getState()).toBe('RUNNING');

    // Told to: the rollback happens.
    await stop(again);
    const rolledBack = await start('aaa111', true);
    expect(rolledBack.outcome).toEqual({ became: 'bbb222' });
    expect(await current()).toBe('aaa111');
    await stop(rolledBack);
    await stop(b);
  });
});
