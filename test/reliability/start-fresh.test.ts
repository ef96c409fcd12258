import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loopWorkflowId, trainingRunWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { championLoopAt } from '../client/champion-loop-cli.js';
import { rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 24: `stop`, then `start --fresh`: the folders moved aside, but the new loop's children
// had the old loop's workflow ids, so every start found the old child, adopted its result, and
// generation 1 ended in seconds with rows pointing into the moved-aside runs folder. A fresh
// start is now a new incarnation of the loop, whose children's ids carry it.

describe('start --fresh of a loop that ran', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a' }, { name: 'b', overrides: { fixture_quality: 0.7 } }],
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  const stop = async (loopId: string) => {
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    return harness.result(loopId);
  };

  it('trains its own runs under ids of its own, adopts none of the old loop, and says where the old state went', async () => {
    const loopId = 'fresh';
    const first = await championLoopAt(harness.server, ['start', loopId, '--config', harness.configFile]);
    expect(first.exitCode).toBe(0);
    await harness.waitFor(loopId, (view) => view.round >= 2 && view.test_evals >= 4, 90_000);
    await stop(loopId);
    const old = rowsOf((await harness.ledger(loopId)).rows, 'run');
    expect(old.length).toBeGreaterThanOrEqual(2);

    const freshAt = new Date().toISOString();
    const fresh = await championLoopAt(harness.server, ['start', loopId, '--config', harness.configFile, '--fresh']);
    expect(fresh.exitCode).toBe(0);
    expect(fresh.stdout).toContain(`moved ${harness.config.state_dir} aside to `);
    expect(fresh.stdout).toContain(`moved ${harness.config.runs_root} aside to `);
    expect(fresh.stdout).toContain("a fresh start, the loop's incarnation 2");

    const view = await harness.waitFor(loopId, (v) => v.round >= 2 && v.test_evals >= 4, 90_000);
    expect(view.generation).toBe(1);
    await stop(loopId);
    const { rows } = await harness.ledger(loopId);
    const runs = rowsOf(rows, 'run');
    // Round 1 trained again, by this loop: every run row is its own (started after the fresh start).
    expect(
      runs
        .filter((run) => run.round === 1)
        .map((run) => run.candidate)
        .sort(),
    ).toEqual(['a', 'b']);
    for (const run of runs) {
      expect(run.started > freshAt).toBe(true);
      expect(run.status).toBe('trained');
    }
    for (const row of rowsOf(rows, 'eval')) expect(row.checkpoint.startsWith(harness.config.runs_root)).toBe(true);
    // Its children carry its incarnation; the old loop's stay where they were.
    const child = trainingRunWorkflowId(loopId, 1, 1, 'a', 1, 2);
    expect(child).toBe(`${loopWorkflowId(loopId)}/i2/g001/r0001/a`);
    expect((await harness.client.workflow.getHandle(child).describe()).status.name).toBe('COMPLETED');
    expect(
      (
        await harness.client.workflow.getHandle(trainingRunWorkflowId(loopId, 1, 1, 'a', 1)).describe()
      ).startTime.toISOString() < freshAt,
    ).toBe(true);
    console.log(`start --fresh: 1 fault injected, ${rows.length} rows checked`);
  });
});
