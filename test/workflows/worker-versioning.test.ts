import { NativeConnection, type Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createOrchestratorWorker, runOrchestrator } from '../../src/workers/orchestrator-worker.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopNowSignal } from '../../src/workflows/messages.js';
import { expectEachRunAndEvalOnce } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { workflowBundle } from '../helpers/workflow-bundle.js';

// Issue 29, Worker Versioning: an orchestrator of a new build started beside the running one
// becomes the deployment's current version. The children in flight finish on the build that
// started them (Pinned); the generation moves to the new build at its next continue-as-new (it
// hands over as soon as it sees a newer build is current), and the children it starts from then
// on run there. Nothing is lost and every row is recorded once.
describe('a new build of the orchestrator, mid-generation', () => {
  let harness: LoopHarness;
  let native: NativeConnection;
  // The new build's orchestrator, once started.
  let newer: Worker | undefined;
  let running: Promise<void> | undefined;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'a', overrides: { fixture_sleep_ms: 800 } },
        { name: 'b', overrides: { fixture_sleep_ms: 800 } },
      ],
      lanes: 2,
      versioned: true,
    });
    native = await NativeConnection.connect({ address: harness.server.address });
  });

  afterAll(async () => {
    newer?.shutdown();
    await running?.catch(() => undefined);
    await harness?.dispose();
    await native?.close();
  });

  const buildOf = async (workflowId: string, runId?: string): Promise<string | undefined> =>
    (await harness.client.workflow.getHandle(workflowId, runId).describe()).raw.workflowExecutionInfo?.versioningInfo
      ?.deploymentVersion?.buildId ?? undefined;

  /** The build ids that completed each workflow task of a run. */
  const taskBuilds = async (workflowId: string): Promise<Set<string>> => {
    const { events } = await harness.client.workflow.getHandle(workflowId).fetchHistory();
    return new Set(
      (events ?? []).flatMap((event) => {
        const buildId = event.workflowTaskCompletedEventAttributes?.deploymentVersion?.buildId;
        return buildId ? [buildId] : [];
      }),
    );
  };

  it('children in flight finish on the old build; the generation goes on in the new one after its next continue-as-new', async () => {
    const loopId = 'upgraded';
    const generation = loopWorkflowId(loopId);
    await harness.startWith(loopId);
    const before = await harness.waitFor(loopId, (view) => view.in_flight.some((flight) => flight.kind === 'run'));
    const oldBuild = await buildOf(generation);
    expect(oldBuild).toMatch(/^[0-9a-f]{12}$/);
    const inFlight = before.in_flight.filter((flight) => flight.kind === 'run').map((flight) => flight.childId);

    newer = await createOrchestratorWorker({
      connection: native,
      namespace: harness.server.namespace,
      workflowBundle: await workflowBundle(),
      buildId: 'new-build',
      versioned: true,
    });
    let replaced: string | null = null;
    running = runOrchestrator(newer, native, harness.server.namespace, (was) => (replaced = was));
    await vi.waitFor(() => expect(replaced).toBe(oldBuild), { timeout: 60_000, interval: 250 });
    // The generation hands over and its next run is on the new build.
    await vi.waitFor(async () => expect(await buildOf(generation)).toBe('new-build'), {
      timeout: 60_000,
      interval: 500,
    });
    // What runs now was started on the old build (before the switch, or by the old run before it handed over).
    const startedOld = (await harness.view(loopId)).in_flight.map((flight) => flight.childId);
    const after = await harness.waitFor(
      loopId,
      (view) => view.in_flight.some((flight) => flight.kind === 'run' && !startedOld.includes(flight.childId)),
      120_000,
    );
    // Those in flight at the switch finished (or finish) on the old build only.
    for (const childId of inFlight) {
      await harness.client.workflow.getHandle(childId).result();
      expect([...(await taskBuilds(childId))]).toEqual([oldBuild]);
    }
    // A training run started after the switch runs on the new build.
    const started = after.in_flight.find((flight) => flight.kind === 'run' && !startedOld.includes(flight.childId));
    expect(await buildOf(started?.childId ?? '')).toBe('new-build');

    await harness.client.workflow.getHandle(generation).signal(stopNowSignal);
    await harness.result(loopId);
    expectEachRunAndEvalOnce((await harness.ledger(loopId)).rows, 'across the upgrade');
  });
});
