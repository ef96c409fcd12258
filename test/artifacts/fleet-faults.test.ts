// A fleet without a shared disk under faults (docs/artifacts.md): a lane host killed in the middle
// of uploading a run it trained (the store made to hang first, so the kill is sure to land there),
// then started again on a new, empty disk. Real dev server, worker processes in private mount
// namespaces, fixture stack and S3 server (SeaweedFS).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { defaultPayloadConverter } from '@temporalio/common';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { blobKey } from '../../src/artifacts/file-store.js';
import { ObjectStore } from '../../src/artifacts/object-store.js';
import { loopWorkflowId, trainingRunWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { expectEachRunAndEvalOnce, processesMentioning, rowsOf } from '../helpers/loop-checks.js';
import { storeForFile } from '../helpers/object-store.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';
import { killWorker } from '../helpers/worker-processes.js';

describe('a fleet without a shared disk, a lane host killed mid-upload', () => {
  let loop: ProcessLoop | undefined;
  let hold: string | undefined;
  const fleetStore = storeForFile(async () => {
    await loop?.dispose();
    if (hold !== undefined) await rm(path.dirname(hold), { recursive: true, force: true });
  });

  beforeAll(async () => {
    // Outside `loops/`, so every host sees it: the held trainer finishes once it exists.
    hold = path.join(await mkdtemp(path.join(tmpdir(), 'champion-loop-hold-')), 'release');
  });

  it('trains the run again on the new disk: recorded once, with every file in the store whole', async () => {
    const loopId = 'fleet';
    loop = await createProcessLoop({
      candidates: [{ name: 'held', overrides: { fixture_wait_for: hold } }, { name: 'other' }],
      lanes: 2,
      privateHosts: true,
    });
    await loop.startWith(loopId, { artifacts: fleetStore.artifacts });
    const held = 'champ-g001-r0001-held';
    // Its trainer runs on a lane (so its job config and split were fetched): the store hangs from now on.
    await vi.waitFor(async () => expect(await processesMentioning(held)).not.toEqual([]), {
      timeout: 120_000,
      interval: 200,
    });
    fleetStore.server.pause();
    await writeFile(hold ?? '', '');
    // The trainer ends and the lane starts the upload, which cannot finish: its heartbeat says so.
    const child = loop.client.workflow.getHandle(trainingRunWorkflowId(loopId, 1, 1, 'held', 1));
    const uploading = await vi.waitFor(
      async () => {
        const pending = (await child.describe()).raw.pendingActivities ?? [];
        const upload = pending.find((activity) => {
          const details = activity.heartbeatDetails?.payloads?.[0];
          return details && defaultPayloadConverter.fromPayload<{ step?: string }>(details).step === 'upload';
        });
        expect(upload, 'the training activity heartbeating its upload').toBeDefined();
        return upload;
      },
      { timeout: 60_000, interval: 250 },
    );
    // Worker identities are `<pid>@<host>`: the lane process that is uploading.
    const pid = Number(uploading?.lastWorkerIdentity?.split('@')[0]);
    const device = loop.lanes.findIndex((lane) => lane.pid === pid);
    expect(device, `a lane process with pid ${pid}`).toBeGreaterThanOrEqual(0);
    await killWorker(loop.lanes[device] as (typeof loop.lanes)[number]);
    fleetStore.server.resume();
    // The host comes back with a disk of its own that never saw the run.
    await loop.restart(device);

    await loop.waitFor(loopId, (view) => view.round >= 2 && view.champion !== null, 300_000);
    await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await loop.result(loopId);
    const { rows } = await loop.ledger(loopId);
    expectEachRunAndEvalOnce(rows, 'the fleet');
    const run = rowsOf(rows, 'run').find((row) => row.run_id === held);
    expect(run?.status).toBe('trained');
    // The kill counts as a lost lane, apart from retries.train (a slow restart may add a second).
    expect(run?.lost_lanes).toBeGreaterThanOrEqual(1);
    const store = new ObjectStore(fleetStore.artifacts);
    try {
      expect(run?.files?.length).toBeGreaterThan(2);
      for (const ref of run?.files ?? [])
        expect(await store.storedSha256(blobKey(store, ref.sha256)), ref.path).toBe(ref.sha256);
    } finally {
      store.close();
    }
  }, 600_000);
});
