import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 23: the seed stops gracefully when `<state_dir>/STOP` exists, and operators' scripts use
// it. The loop honours it the same way (no new job, running work finishes), and `start` refuses
// while the file is there, as the seed would stop again at once.

describe("the seed's STOP file", () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({ candidates: [{ name: 'a', overrides: { fixture_sleep_ms: 300 } }], lanes: 1 });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('stops the loop after its running work; start refuses while it is there, and resumes once it is gone', async () => {
    const config = harness.configFor('stopfile');
    await harness.startWith('stopfile');
    await harness.waitFor('stopfile', (view) => view.in_flight.length > 0);
    const stopFile = path.join(config.state_dir, 'STOP');
    await writeFile(stopFile, '');

    // The orchestrator's next ledger-copy pass (every 2 s) asks for the stop.
    const stopping = await harness.waitFor('stopfile', (view) => view.stopping);
    expect(stopping.stopping).toBe(true);
    const result = await harness.result('stopfile');
    expect(result.view).toMatchObject({ stopping: true, in_flight: [] });

    await expect(harness.startWith('stopfile')).rejects.toThrow(
      `${stopFile} exists: it stops loop stopfile (as the seed's STOP file did). Delete it, then start the loop again. Nothing started.`,
    );
    await rm(stopFile);
    const resumed = await harness.startWith('stopfile');
    expect(resumed.kind).toBe('resumed');
    const view = await harness.waitFor('stopfile', (v) => v.in_flight.length > 0);
    expect(view.stopping).toBe(false);
    await harness.client.workflow.getHandle(`champion-loop/stopfile`).executeUpdate('stopNow');
  });
});
