import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { packagingSettled } from '../../src/client/packaging-control.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { processesMentioning, rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 47: every end of `npm run demo` left a `launch_failed ... Worker is shutting down` package
// row: the demo stopped its package worker while the package of the loop's last champion ran. The
// demo now waits for packaging to settle first (`packagingSettled`), bounded by timeouts.package.

describe('the demo lets a running package finish before it stops the workers', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'a', overrides: { fixture_quality: 0.3 } },
        { name: 'b', overrides: { fixture_quality: 0.7 } },
      ],
      lanes: 1,
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('waits while the package command runs after the loop stopped, saying which champion; gives up at its deadline; ends once the package finished, with no launch_failed row', async () => {
    const gate = path.join(await mkdtemp(path.join(tmpdir(), 'champion-loop-settle-')), 'release');
    const loopId = 'settle';
    await harness.startWith(loopId, {
      commands: {
        ...harness.config.commands,
        package: ['env', `FIXTURE_PACKAGE_WAIT_FILE=${gate}`, ...FIXTURE_COMMANDS.package],
      },
      saturation_evals: 1000,
    });
    // A champion's package command runs (held on the gate), and the loop is stopped under it.
    await vi.waitFor(
      async () => {
        const running = (await processesMentioning(harness.configFor(loopId).state_dir)).filter((p) =>
          p.cmdline.includes('package.mjs'),
        );
        if (running.length === 0) throw new Error('no package command runs yet');
      },
      { timeout: 120_000, interval: 200 },
    );
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);

    // Its deadline passed while the command is held: it names the champion it still packages.
    const said: string[] = [];
    const unfinished = await packagingSettled(harness.client, loopId, {
      deadlineMs: Date.now() + 1_000,
      say: (line) => said.push(line),
    });
    expect(unfinished).not.toBeNull();
    expect(said).toEqual([
      `waiting for the package of generation ${unfinished?.generation}'s champion ${unfinished?.run_id} ` +
        `${unfinished?.checkpoint_name} to finish before stopping the workers`,
    ]);

    // With time enough: not settled while held, settled once the command finished.
    let settled = false;
    const settling = packagingSettled(harness.client, loopId, {
      deadlineMs: Date.now() + 120_000,
      say: () => undefined,
      intervalMs: 100,
    }).then((left) => {
      settled = true;
      return left;
    });
    // The command is still held: the wait cannot have ended (packaging's view shows it running).
    expect(
      (await processesMentioning(harness.configFor(loopId).state_dir)).some((p) => p.cmdline.includes('package.mjs')),
    ).toBe(true);
    expect(settled).toBe(false);
    await writeFile(gate, '');
    expect(await settling).toBeNull();

    const { rows } = await harness.ledger(loopId);
    const packages = rowsOf(rows, 'package');
    expect(packages.filter((row) => row.event === 'launch_failed')).toEqual([]);
    const last = result.view.champion;
    expect(
      packages.some(
        (row) =>
          row.event === 'finished' &&
          row.exit_code === 0 &&
          row.run_id === last?.run_id &&
          row.checkpoint_name === last?.checkpoint_name,
      ),
      `the loop's last champion ${last?.run_id} ${last?.checkpoint_name} is packaged: ${JSON.stringify(packages)}`,
    ).toBe(true);
  });
});
