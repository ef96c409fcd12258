// A run dispatched while the artifact store is down (docs/artifacts.md, "Faults"): the
// orchestrator's upload of its job inputs fails, the training run waits in its workflow (5 s
// doubling to a minute) and `status` says so; once the store is back it trains, recorded once.
// Real dev server, in-process workers, fixture stack and S3 server (SeaweedFS).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { temporal } from '@temporalio/proto';
import { describe, expect, it, vi } from 'vitest';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { championLoopAt } from '../client/champion-loop-cli.js';
import { expectEachRunAndEvalOnce, rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { storeForFile } from '../helpers/object-store.js';

describe('a run dispatched while the artifact store is down', () => {
  let loop: LoopHarness | undefined;
  let hold: string | undefined;
  const fleetStore = storeForFile(async () => {
    await loop?.dispose();
    if (hold !== undefined) await rm(path.dirname(hold), { recursive: true, force: true });
  });

  it('waits for the store to take its job inputs, says so in status, and trains once it is back', async () => {
    hold = path.join(await mkdtemp(path.join(tmpdir(), 'champion-loop-hold-')), 'release');
    const loopId = 'waits';
    // One lane, so the order is fixed: round 1's `base` goes through the store; then `failing`
    // holds the lane, trained from inputs the store already took, until the test lets it fail (a
    // failed training uploads nothing); the store goes away while it holds; the next job, round 2's
    // `base`, is dispatched only then. (With two lanes, which runs were prepared before the store
    // went away was a race: CI once had both lanes taken by `failing` runs waiting for the store.)
    loop = await createLoopHarness({
      lanes: 1,
      candidates: [{ name: 'base' }, { name: 'failing', overrides: { fixture_train: 'fail', fixture_wait_for: hold } }],
    });
    expect((await loop.startWith(loopId, { artifacts: fleetStore.artifacts })).kind).toBe('started');
    // Round 1's base is scored (its files went through the store), and round 1's `failing` is on the lane.
    await vi.waitFor(
      async () => {
        const evals = rowsOf((await loop!.ledger(loopId)).rows, 'eval');
        expect(evals.filter((row) => row.run_id === 'champ-g001-r0001-base' && row.role === 'test')).not.toEqual([]);
        const held = (await loop!.view(loopId)).in_flight.find((job) => job.jobId === 'champ-g001-r0001-failing');
        expect(held).toBeDefined();
        const training = (await loop!.client.workflow.getHandle(held!.childId).describe()).raw.pendingActivities ?? [];
        expect(training.map((activity) => [activity.activityType?.name, activity.state])).toContainEqual([
          'trainRun',
          temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
        ]);
      },
      { timeout: 180_000, interval: 500 },
    );
    await fleetStore.server.kill();
    await writeFile(hold, '');
    const out = await vi.waitFor(
      async () => {
        const status = await championLoopAt(loop!.server, ['status', loopId]);
        expect(status.stdout).toMatch(
          /^store: champ-g001-r0002-base: the run's job inputs wait for the artifact store: .*trying again in \d+ s$/m,
        );
        return String(status.stdout);
      },
      { timeout: 120_000, interval: 1_000 },
    );
    expect(out).toContain('ECONNREFUSED');
    // Nothing of the waiting run is recorded while it waits.
    expect(rowsOf((await loop.ledger(loopId)).rows, 'run').map((row) => row.run_id)).not.toContain(
      'champ-g001-r0002-base',
    );

    await fleetStore.server.restart();
    await loop.waitFor(loopId, (view) => view.round >= 3, 240_000);
    await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await loop.result(loopId);
    const { rows } = await loop.ledger(loopId);
    expectEachRunAndEvalOnce(rows, 'the loop');
    const waited = rowsOf(rows, 'run').find((row) => row.run_id === 'champ-g001-r0002-base');
    expect(waited?.status).toBe('trained');
    expect(waited?.files?.map((ref) => ref.path)).toContain(waited?.config_path);
  }, 600_000);
});
