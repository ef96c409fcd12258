// Records the histories test/replay/replay.test.ts replays: `npm run record-histories`.
// Re-record after a deliberate, versioned workflow change (see docs/development.md, "Changing workflow code").
import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, it } from 'vitest';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { advanceSignal, advanceUpdate, stopNowSignal, stopSignal, stopUpdate } from '../../src/workflows/messages.js';
import { createLoopHarness, type HarnessOptions, type LoopHarness } from '../helpers/loop-harness.js';
import { HISTORIES_DIR, recordScenario } from './histories.js';

async function scenario(
  name: string,
  options: HarnessOptions,
  drive: (harness: LoopHarness) => Promise<void>,
): Promise<void> {
  const harness = await createLoopHarness(options);
  try {
    await harness.start(name);
    await drive(harness);
    await harness.result(name);
    // Let packaging finish what it was given, so its history ends at rest.
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const files = await recordScenario(harness.client, name);
    console.log(`${name}: recorded ${files.length} histories`);
  } finally {
    await harness.dispose();
  }
}

describe('recording histories', () => {
  it('records a loop through generations, teachers, ensembles, reserve checks, advance, stop and stop at once', async () => {
    for (const file of await readdir(HISTORIES_DIR))
      if (file.endsWith('.json')) await rm(path.join(HISTORIES_DIR, file));

    await scenario(
      'loop',
      {
        candidates: [
          { name: 'weak', overrides: { fixture_quality: 0.3 } },
          { name: 'strong', overrides: { fixture_quality: 0.8 } },
          { name: 'student', overrides: { gate_soft_targets: 'artifacts/teachers/gen-{generation}/insample.jsonl' } },
        ],
        loop: { teacher_after_round: 2, saturation_evals: 12, max_reserve_checks: 1 },
      },
      async (harness) => {
        await harness.waitFor('loop', (view) => view.generation >= 2, 180_000);
        const handle = harness.client.workflow.getHandle(loopWorkflowId('loop'));
        await handle.signal(advanceSignal, 'advanced by hand');
        await harness.waitFor('loop', (view) => view.generation >= 3 && view.round >= 1, 120_000);
        await handle.signal(stopSignal);
      },
    );

    process.env.FIXTURE_FAIL_EVALUATE = 'degraded:reserve';
    try {
      await scenario(
        'reserve-fail',
        {
          candidates: [{ name: 'a' }, { name: 'b', overrides: { fixture_quality: 0.7 } }],
          loop: { saturation_evals: 4 },
        },
        async (harness) => {
          await harness.waitFor('reserve-fail', (view) => view.generation >= 2 && view.in_flight.length > 0, 120_000);
          await harness.client.workflow.getHandle(loopWorkflowId('reserve-fail')).signal(stopNowSignal);
        },
      );
    } finally {
      delete process.env.FIXTURE_FAIL_EVALUATE;
    }

    await scenario(
      'forced-can',
      {
        candidates: [{ name: 'a' }, { name: 'b', overrides: { fixture_quality: 0.7 } }],
        // Continue-as-new every 60 events (the cap of loop.yaml max_run_events), runs in flight.
        loop: { saturation_evals: 1000, max_run_events: 60 },
      },
      async (harness) => {
        await harness.waitFor('forced-can', (view) => view.round >= 4, 120_000);
        await harness.client.workflow.getHandle(loopWorkflowId('forced-can')).signal(stopSignal);
      },
    );

    // A non-default champion rule (its patch marker, item records on eval rows) and the commands
    // as updates, which leave accepted-update events instead of signals.
    await scenario(
      'paired',
      {
        candidates: [{ name: 'a' }, { name: 'b', overrides: { fixture_quality: 0.7 } }],
        loop: { saturation_evals: 1000, champion_rule: 'paired', alpha: 0.05 },
      },
      async (harness) => {
        const handle = harness.client.workflow.getHandle(loopWorkflowId('paired'));
        await harness.waitFor('paired', (view) => view.round >= 3, 120_000);
        await handle.executeUpdate(advanceUpdate, { args: ['advanced by update'] });
        await harness.waitFor('paired', (view) => view.generation >= 2 && view.round >= 1, 120_000);
        await handle.executeUpdate(stopUpdate);
      },
    );
  });
});
