import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stopLoop } from '../../src/client/loop-updates.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopNowSignal, stopSignal } from '../../src/workflows/messages.js';
import { processesMentioning, rowsOf, signalWithCli, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type CandidateSpec, type LoopHarness } from '../helpers/loop-harness.js';

describe('stopping, resuming and starting a loop twice', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({ candidates: [{ name: 'a' }, { name: 'b' }] });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  /** A loop of its own with its own candidates file. */
  async function startLoopWith(loopId: string, candidates: readonly CandidateSpec[]) {
    const file = path.join(harness.dir, `${loopId}.candidates.yaml`);
    await harness.writeCandidates(candidates, file);
    return harness.startWith(loopId, { candidates: file });
  }

  const loopDir = (loopId: string) => path.join(harness.dir, 'loops', loopId);
  const handle = (loopId: string) => harness.client.workflow.getHandle(loopWorkflowId(loopId));

  it('stop lets running work finish, then the loop closes with its view; start resumes it, and reports it when it runs', async () => {
    // Both trainings wait for `release` (written after the stop is seen), so both are still in
    // flight when it lands, however slowly the box answers.
    const release = path.join(harness.dir, 'graceful.release');
    const slow = { fixture_wait_for: release, fixture_epochs: 2 };
    expect(
      (
        await startLoopWith('graceful', [
          { name: 'a', overrides: slow },
          { name: 'b', overrides: { ...slow, fixture_quality: 0.8 } },
        ])
      ).kind,
    ).toBe('started');
    // The ledger of a loop that has no champion (and no packaging workflow) yet exports too.
    expect(rowsOf((await harness.ledger('graceful')).rows, 'generation')).toHaveLength(1);
    const running = await harness.waitFor('graceful', (view) => view.in_flight.length === 2);
    await stopLoop(harness.client, { loopId: 'graceful', now: false });
    const stopping = await harness.view('graceful');
    expect(stopping.stopping).toBe(true);
    expect(stopping.in_flight.map((flight) => flight.childId)).toEqual(
      running.in_flight.map((flight) => flight.childId),
    );
    expect((await handle('graceful').describe()).status.name).toBe('RUNNING');
    await writeFile(release, '');

    const result = await harness.result('graceful');
    expect((await handle('graceful').describe()).status.name).toBe('COMPLETED');
    expect(result.view).toMatchObject({ generation: 1, stopping: true, in_flight: [] });
    const { rows, state } = await harness.ledger('graceful');
    // Exactly the runs in flight at the stop, trained to the end and scored; nothing launched after it.
    expect(
      rowsOf(rows, 'run')
        .map((row) => row.run_id)
        .sort(),
    ).toEqual(running.in_flight.map((flight) => flight.jobId).sort());
    expect(rowsOf(rows, 'run').every((row) => row.status === 'trained' && row.epochs_run === 2)).toBe(true);
    expect(rowsOf(rows, 'eval').length).toBeGreaterThanOrEqual(2);
    expect(stateOf(state)).toEqual(stateOf(result.view));
    expect(result.view.champion).not.toBeNull();

    const resumed = await harness.startWith('graceful', {
      candidates: path.join(harness.dir, 'graceful.candidates.yaml'),
    });
    expect(resumed).toMatchObject({ kind: 'resumed', generation: 1 });
    const again = await harness.view('graceful');
    expect(again).toMatchObject({
      generation: 1,
      champion: result.view.champion,
      pareto_set: result.view.pareto_set,
      stopping: false,
    });
    const twice = await harness.startWith('graceful');
    expect(twice.kind).toBe('already-running');
    expect(twice.kind === 'already-running' && twice.view?.generation).toBe(1);

    await harness.waitFor('graceful', (view) => view.round > result.view.round && view.in_flight.length > 0);
    await signalWithCli(harness.server, 'graceful', stopSignal.name);
    const second = await harness.result('graceful');
    expect(second.view.stopping).toBe(true);
    const after = await harness.ledger('graceful');
    expect(rowsOf(after.rows, 'generation')).toHaveLength(1);
    const runIds = rowsOf(after.rows, 'run').map((row) => row.run_id);
    expect(new Set(runIds).size).toBe(runIds.length);
    expect(runIds.length).toBeGreaterThan(2);
    expect(stateOf(after.state)).toEqual(stateOf(second.view));
  });

  it('stop --now cancels running jobs, leaves no subprocess of the loop running and records no half result, from the client and the temporal CLI', async () => {
    const hang = { fixture_train: 'hang' };
    await startLoopWith('now', [
      { name: 'a', overrides: hang },
      { name: 'b', overrides: hang },
    ]);
    const trainers = () =>
      processesMentioning(loopDir('now')).then((found) => found.filter((p) => p.cmdline.includes('train.mjs')));
    await harness.waitFor('now', (view) => view.in_flight.length === 2);
    await expect
      .poll(async () => (await trainers()).length, { timeout: 30_000, interval: 250, message: 'both trainers run' })
      .toBe(2);

    await stopLoop(harness.client, { loopId: 'now', now: true });
    const result = await harness.result('now');
    expect(result.view.in_flight).toEqual([]);
    const gone = Date.now();
    await expect
      .poll(() => processesMentioning(loopDir('now')), {
        timeout: 30_000,
        interval: 250,
        message: 'no process of the loop is left',
      })
      .toEqual([]);
    console.log(`stop --now: the loop's subprocesses were gone ${Date.now() - gone} ms after the workflow closed`);
    for (const childId of ['a', 'b'].map((name) => `${loopWorkflowId('now')}/g001/r0001/${name}`)) {
      expect((await harness.client.workflow.getHandle(childId).describe()).status.name).toBe('CANCELLED');
    }
    const { rows } = await harness.ledger('now');
    expect(rowsOf(rows, 'run')).toEqual([]);
    expect(rowsOf(rows, 'eval')).toEqual([]);
    // The cancelled jobs wait, once each, for the loop to start again.
    expect(result.resume.queue.map((job) => job.jobId).sort()).toEqual(['champ-g001-r0001-a', 'champ-g001-r0001-b']);

    expect((await harness.startWith('now', { candidates: path.join(harness.dir, 'now.candidates.yaml') })).kind).toBe(
      'resumed',
    );
    const retried = await harness.waitFor('now', (view) => view.in_flight.length === 2);
    expect(retried.in_flight.map((flight) => flight.childId).sort()).toEqual(
      ['a', 'b'].map((name) => `${loopWorkflowId('now')}/g001/r0001/${name}.2`),
    );
    expect(retried.queued).toBe(0);
    await expect
      .poll(async () => (await trainers()).length, { timeout: 30_000, interval: 250, message: 'both trainers run' })
      .toBe(2);

    await signalWithCli(harness.server, 'now', stopNowSignal.name);
    const second = await harness.result('now');
    await expect
      .poll(() => processesMentioning(loopDir('now')), {
        timeout: 30_000,
        interval: 250,
        message: 'no process of the loop is left',
      })
      .toEqual([]);
    expect(rowsOf((await harness.ledger('now')).rows, 'run')).toEqual([]);
    expect(second.resume.queue.map((job) => job.jobId).sort()).toEqual(['champ-g001-r0001-a', 'champ-g001-r0001-b']);
  });
});
