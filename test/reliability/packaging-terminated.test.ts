import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runIdFor } from '../../src/rules/ids.js';
import { loopWorkflowId, packagingWorkflowId } from '../../src/workflows/ids.js';
import { resumeSignal, stopNowSignal } from '../../src/workflows/messages.js';
import { championLoopAt } from '../client/champion-loop-cli.js';
import { packagingIdle, rowsOf, signalHandled } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 23: the packaging workflow terminated by hand (`temporal workflow terminate
// .../packaging`) while the loop runs: `status` said nothing, and the champion it held was never
// packaged until a stop and start. `status` now says so and what to do, and a `resume` does it.

describe('a packaging workflow terminated by hand', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    // Only round 1 trains (every later run fails): one champion, so no new one restarts packaging while the test looks.
    process.env.FIXTURE_FAIL_TRAIN = Array.from({ length: 200 }, (_, i) => `fail:${runIdFor(1, i + 2, 'a')}`).join(',');
    harness = await createLoopHarness({ candidates: [{ name: 'a', overrides: { fixture_sleep_ms: 300 } }], lanes: 1 });
  });

  afterAll(async () => {
    delete process.env.FIXTURE_FAIL_TRAIN;
    await harness?.dispose();
  });

  it('status of the running loop names it and says how the champion gets packaged', async () => {
    await harness.startWith('unpackaged');
    await harness.waitFor('unpackaged', (view) => view.champion !== null);
    const packaging = harness.client.workflow.getHandle(packagingWorkflowId('unpackaged'));
    // Round 1's champion packaged: nothing is on its way to packaging when it is terminated.
    await expect
      .poll(
        async () =>
          rowsOf((await harness.ledger('unpackaged')).rows, 'package').some((row) => row.event === 'finished'),
        {
          timeout: 60_000,
        },
      )
      .toBe(true);
    const before = await championLoopAt(harness.server, ['status', 'unpackaged']);
    expect(before.stdout).not.toContain('packaging: workflow');

    await packaging.terminate('by hand');
    const status = await championLoopAt(harness.server, ['status', 'unpackaged']);
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toContain(
      `packaging: workflow ${packagingWorkflowId('unpackaged')} was terminated; the next champion starts it again. To package the champion now: temporal workflow signal --workflow-id ${loopWorkflowId('unpackaged')} --name resume (or stop and start the loop)`,
    );
    const json = JSON.parse(
      String((await championLoopAt(harness.server, ['status', 'unpackaged', '--json'])).stdout),
    ) as {
      packaging_ended?: string;
    };
    expect(json.packaging_ended).toContain('was terminated');

    // What the status says to do: `resume` hands the champion to a new packaging run, which packages it.
    const champion = (await harness.view('unpackaged')).champion;
    await harness.client.workflow.getHandle(loopWorkflowId('unpackaged')).signal(resumeSignal);
    await expect
      .poll(
        async () =>
          rowsOf((await harness.ledger('unpackaged')).rows, 'package').filter(
            (row) =>
              row.event === 'finished' &&
              row.run_id === champion?.run_id &&
              row.checkpoint_name === champion?.checkpoint_name,
          ).length,
        { timeout: 60_000 },
      )
      .toBe(2);
    const after = await championLoopAt(harness.server, ['status', 'unpackaged']);
    expect(after.stdout).not.toContain('packaging: workflow');
    // A second resume, with packaging running: nothing is packaged twice more.
    // Checked once the loop has handled the resume (a workflow task completed after its signal, seen
    // in the history) and packaging has settled, rather than after a guessed 3 s.
    const loop = harness.client.workflow.getHandle(loopWorkflowId('unpackaged'));
    await loop.signal(resumeSignal);
    await signalHandled(loop, resumeSignal.name);
    await packagingIdle(harness.client, 'unpackaged');
    expect(
      rowsOf((await harness.ledger('unpackaged')).rows, 'package').filter((row) => row.event === 'launched').length,
    ).toBe(2);
    await harness.client.workflow.getHandle(loopWorkflowId('unpackaged')).signal(stopNowSignal);
    await harness.result('unpackaged');
  });
});
