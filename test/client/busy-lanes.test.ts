// A lane worker whose every slot runs a job does not poll its task queue until one frees, so
// Temporal's poller list goes stale for it: `status` must not call such a lane unserved ("no
// worker polls ... start one") while its jobs' activities run and heartbeat. Real dev server,
// in-process workers, fixture stack; the trainers are held past the poller list's 90 s. A
// second loop whose jobs wait behind the first's is told the lane is busy, and whose jobs hold it
// (worker heartbeats, temporal-dev.yaml), not to start another worker.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { championLoopAt } from './champion-loop-cli.js';

describe('status of a loop whose lanes are all busy', () => {
  let loop: LoopHarness | undefined;
  let hold: string | undefined;
  afterAll(async () => {
    await loop?.dispose();
    if (hold !== undefined) await rm(path.dirname(hold), { recursive: true, force: true });
  });

  it('does not say that no worker polls a lane whose one slot runs a job, its own or another loop’s', async () => {
    hold = path.join(await mkdtemp(path.join(tmpdir(), 'champion-loop-hold-')), 'release');
    loop = await createLoopHarness({
      candidates: [
        { name: 'one', overrides: { fixture_wait_for: hold } },
        { name: 'two', overrides: { fixture_wait_for: hold } },
      ],
    });
    expect((await loop.startWith('busy', {})).kind).toBe('started');
    await loop.waitFor('busy', (view) => view.lanes.every((lane) => lane.busy === lane.slots), 120_000);
    // A second loop on the same lane: its own view of the lane is 0/1, its job waits in the
    // queue behind loop busy's (issue 48, item 5: it was told "no worker polls ... start one").
    expect((await loop.startWith('other', {})).kind).toBe('started');
    await loop.waitFor('other', (view) => view.queued + view.in_flight.length > 0, 120_000);
    // Past the 90 s after which a poller that stopped polling no longer counts, and at least five
    // checks (each starts two CLI processes: on a busy box fewer than five fit in 100 s).
    const until = Date.now() + 100_000;
    let checks = 0;
    let other = '';
    while (Date.now() < until || checks < 5) {
      const { stdout } = await championLoopAt(loop.server, ['status', 'busy']);
      expect(stdout).toMatch(/lane champion-loop\.test\.gpu0: 1\/1/);
      expect(stdout).not.toContain('no worker polls');
      other = String((await championLoopAt(loop.server, ['status', 'other'])).stdout);
      expect(other).not.toContain('no worker polls');
      checks += 1;
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    }
    // Stale pollers by now: the other loop is told whose jobs hold the lane, and to wait.
    expect(other).toMatch(
      /task queue champion-loop\.test\.gpu0 is busy, not unserved: its worker \(\S+\) runs a job in every slot \(1\) \(jobs of loop busy: 1\); this loop's jobs there wait for a slot/,
    );
    await writeFile(hold, '');
    for (const loopId of ['busy', 'other']) {
      await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
      await loop.result(loopId);
    }
  }, 400_000);
});
