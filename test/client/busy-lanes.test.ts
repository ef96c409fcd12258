// A lane worker whose every slot runs a job does not poll its task queue until one frees, so
// Temporal's poller list goes stale for it: `status` must not call such a lane unserved ("no
// worker polls ... start one") while its jobs' activities run and heartbeat. Real dev server,
// in-process workers, fixture stack; the trainers are held past the poller list's 90 s.
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

  it('does not say that no worker polls a lane whose one slot runs a job', async () => {
    hold = path.join(await mkdtemp(path.join(tmpdir(), 'champion-loop-hold-')), 'release');
    loop = await createLoopHarness({
      candidates: [
        { name: 'one', overrides: { fixture_wait_for: hold } },
        { name: 'two', overrides: { fixture_wait_for: hold } },
      ],
    });
    expect((await loop.startWith('busy', {})).kind).toBe('started');
    await loop.waitFor('busy', (view) => view.lanes.every((lane) => lane.busy === lane.slots), 120_000);
    // Past the 90 s after which a poller that stopped polling no longer counts.
    const until = Date.now() + 100_000;
    let checks = 0;
    while (Date.now() < until) {
      const { stdout } = await championLoopAt(loop.server, ['status', 'busy']);
      expect(stdout).toMatch(/lane champion-loop\.test\.gpu0: 1\/1/);
      expect(stdout).not.toContain('no worker polls');
      checks += 1;
      await new Promise((resolve) => setTimeout(resolve, 10_000));
    }
    expect(checks).toBeGreaterThanOrEqual(5);
    await writeFile(hold, '');
    await loop.client.workflow.getHandle(loopWorkflowId('busy')).signal(stopSignal);
    await loop.result('busy');
  }, 400_000);
});
