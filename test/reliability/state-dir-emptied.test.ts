// Issue 48, item 8: the state dir emptied (rm -rf) while a run trains. Its job config went with
// the folder: the training run writes it again (the same bytes, checked by the run row's sha256;
// the split built again first) and the run is scored, never a failed evaluation ("config not
// found"). Real dev server, in-process workers, fixture stack; the trainer is held on a file.
import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { rowsOf } from '../helpers/loop-checks.js';

describe('a state dir emptied under a training run', () => {
  let harness: LoopHarness;
  let hold: string;

  beforeAll(async () => {
    hold = path.join(await mkdtemp(path.join(tmpdir(), 'champion-loop-hold-')), 'release');
    harness = await createLoopHarness({
      candidates: [{ name: 'held', overrides: { fixture_wait_for: hold, fixture_epochs: 3 } }],
      lanes: 1,
    });
  });

  afterAll(async () => {
    await harness?.dispose();
    await rm(path.dirname(hold), { recursive: true, force: true });
  });

  it('writes the job config again before scoring the run: every eval ok, the config as it trained', async () => {
    const stateDir = harness.configFor('emptied-early').state_dir;
    expect((await harness.startWith('emptied-early', {})).kind).toBe('started');
    // The trainer has written its last epoch (fixture_epochs 3) and waits for the file: it read its config and split.
    const lastEpoch = path.join(
      harness.configFor('emptied-early').runs_root,
      'champ-g001-r0001-held',
      'checkpoint-0003.pt',
    );
    await vi.waitFor(() => stat(lastEpoch), { timeout: 120_000, interval: 250 });
    await rm(stateDir, { recursive: true, force: true, maxRetries: 10 });
    await writeFile(hold, '');
    await harness.waitFor('emptied-early', (view) => view.test_evals >= 2, 120_000);
    await harness.client.workflow.getHandle(loopWorkflowId('emptied-early')).signal(stopSignal);
    await harness.result('emptied-early');
    const { rows } = await harness.ledger('emptied-early');
    const first = rowsOf(rows, 'run').find((row) => row.run_id === 'champ-g001-r0001-held');
    expect(first?.error ?? null, JSON.stringify(first)).toBeNull();
    expect(first?.status).toBe('trained');
    const evals = rowsOf(rows, 'eval').filter((row) => row.run_id === 'champ-g001-r0001-held');
    expect(evals.length).toBeGreaterThan(0);
    expect(evals.map((row) => row.status)).toEqual(evals.map(() => 'ok'));
    const text = await readFile(first!.config_path);
    expect(createHash('sha256').update(text).digest('hex')).toBe(first!.config_sha256);
  });
});
