import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seededRandom } from '../../../bench/lib/durations.js';
import { copyCaughtUp } from '../../helpers/bounded-loop.js';
import { copyIsTheExport, damageAtRandom } from '../../helpers/copy-faults.js';
import { createLoopHarness, type LoopHarness } from '../../helpers/loop-harness.js';
import { loopWorkflowId } from '../../../src/workflows/ids.js';
import { stopNowSignal } from '../../../src/workflows/messages.js';

// Issue 24's drill (`npm run fault-drills`; a six-fault version runs in `npm test`,
// test/ledger-copy/copy-damage.test.ts): FAULTS (20) kinds of damage to a running loop's ledger
// copy at random, 0-3 s apart (truncate, a garbage line, a duplicated, deleted or swapped line,
// the file or the whole state dir deleted); FAULT_SEED=N repeats a drill. The copy must end as
// the export, every row history holds once.
const FAULTS = Number(process.env.FAULTS ?? 20);
const SEED = Number(process.env.FAULT_SEED ?? Date.now() % 100_000);

describe('ledger copy faults drill', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a', overrides: { fixture_sleep_ms: 300 } }, { name: 'b' }],
      lanes: 2,
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it(`${FAULTS} random faults to the copy while a loop runs: it ends as the export, every row once`, async () => {
    const config = harness.configFor('drill');
    await harness.startWith('drill');
    await harness.waitFor('drill', (view) => view.round >= 1);
    const faults = await damageAtRandom(config.state_dir, seededRandom(SEED), FAULTS);
    await harness.client.workflow.getHandle(loopWorkflowId('drill')).signal(stopNowSignal);
    await harness.result('drill');
    const rows = await copyIsTheExport(harness, 'drill', config.state_dir);
    expect((await copyCaughtUp(harness, 'drill', config.state_dir)).length).toBe(rows.length);
    const counts = new Map<string, number>();
    for (const fault of faults) counts.set(fault, (counts.get(fault) ?? 0) + 1);
    console.log(
      `ledger copy faults (seed ${SEED}): ${faults.length} faults injected (${[...counts].map(([kind, n]) => `${kind} ${n}`).join(', ')}), ${rows.length} rows compared`,
    );
  });
});
