import { utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { CLOSED_MARGIN_MS } from '../../src/ledger-copy/ledger-keeper.js';
import { processStartTime } from '../../src/support/process-alive.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopNowSignal } from '../../src/workflows/messages.js';
import { copyHoldsHistory } from '../helpers/bounded-loop.js';
import { copyIsTheExport } from '../helpers/copy-faults.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// A stopped loop's copy is let go only once a keeper pass synced it. Found on CI's busy box (the
// cluster test): the orchestrator keeping a copy was killed, the copy's lock still named a live
// process (the id handed to another process since, as Linux does with pid_max 32768), and the
// loop stopped before the lock went stale; once its close time fell out of the keeper's listing,
// nothing brought its last rows, however long the worker ran on.

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('a stopped loop whose copy another writer held when it stopped', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({ candidates: [{ name: 'a' }, { name: 'b' }], lanes: 1 });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('gets its last rows once that writer is gone, long after the loop closed', async () => {
    const config = harness.configFor('held');
    await harness.startWith('held', { saturation_evals: 1000 });
    await harness.waitFor('held', (view) => view.test_evals >= 1);
    await copyHoldsHistory(harness, 'held', config.state_dir);

    // Another live writer takes the copy's lock, as a process its file names would hold it, and keeps it fresh.
    const holder = execa('sleep', ['600'], { reject: false });
    const lock = path.join(config.state_dir, 'ledger.jsonl.lock');
    await writeFile(lock, `${hostname()} ${holder.pid} ${processStartTime(holder.pid ?? 0)}`);
    // What the loop had scored when the lock was taken: the rows of what it scores next wait for the keeper.
    const before = await harness.waitFor('held', () => true);
    const fresh = setInterval(() => {
      const now = new Date();
      void utimes(lock, now, now).catch(() => undefined);
    }, 2_000);
    try {
      // More rows while it holds the copy, then the loop stops.
      await harness.waitFor('held', (view) => view.test_evals >= before.test_evals + 2);
      const handle = harness.client.workflow.getHandle(loopWorkflowId('held'));
      await handle.signal(stopNowSignal);
      await harness.result('held');
      // Its close time falls out of what the keeper lists (runs closed since its last pass, with a margin).
      const closed = (await handle.describe()).closeTime?.getTime() ?? Date.now();
      await sleep(Math.max(0, closed + CLOSED_MARGIN_MS + 10_000 - Date.now()));
    } finally {
      clearInterval(fresh);
      holder.kill('SIGKILL');
      await holder;
    }
    // The holder is gone: the keeper takes the lock and brings every row history holds.
    await copyIsTheExport(harness, 'held', config.state_dir);
  });
});
