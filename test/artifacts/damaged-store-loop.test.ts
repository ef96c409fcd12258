// Issue 48, item 2, the whole loop: every blob its rows name overwritten in the store while it
// runs with `keep_local_gib: 0` (no host keeps a run directory past its step, so every later step
// fetches). Before, each step that fetched one waited "changed or damaged in the store; trying
// again in 60 s" until timeouts.evaluate (6 h by default), holding its lane. Now each such step
// fails at once naming the object and what to do, its lane is free, and the loop goes on: later
// rounds train and score. Real dev server, in-process workers, fixture stack, SeaweedFS.
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { blobKey } from '../../src/artifacts/file-store.js';
import { ObjectStore } from '../../src/artifacts/object-store.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { expectEachRunAndEvalOnce, rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { storeForFile } from '../helpers/object-store.js';

describe('a loop whose stored files are all overwritten (keep_local_gib: 0)', () => {
  let loop: LoopHarness | undefined;
  const fleetStore = storeForFile(async () => loop?.dispose());

  it('fails each step that needs a damaged object, naming it in the step log, and goes on: later rounds train and score', async () => {
    const loopId = 'damaged-store';
    loop = await createLoopHarness({
      candidates: [{ name: 'base' }, { name: 'wide', overrides: { fixture_quality: 0.7 } }],
    });
    await loop.startWith(loopId, {
      artifacts: { ...fleetStore.artifacts, keep_local_gib: 0 },
      saturation_evals: 1000,
      // A step that waited for a damaged object would hold its lane for this long.
      timeouts: { ...loop.config.timeouts, evaluate: '6h' },
    });
    const before = await loop.waitFor(loopId, (view) => view.round >= 3, 300_000);

    // Every file a row names so far, overwritten in the store (what a botched sync or another
    // writer with the same prefix does).
    const { rows: early } = await loop.ledger(loopId);
    const damaged = new Set(
      early.flatMap((row) => ('files' in row && row.files ? row.files.map((f) => f.sha256) : [])),
    );
    expect(damaged.size).toBeGreaterThan(4);
    const store = new ObjectStore(fleetStore.artifacts);
    for (const sha256 of damaged) await store.putBytes(blobKey(store, sha256), Buffer.from('overwritten'));
    store.close();

    // The loop goes on: three more rounds are planned (each needs the round before it finished).
    await loop.waitFor(loopId, (view) => view.round >= before.round + 3, 300_000);
    await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await loop.result(loopId);
    const { rows } = await loop.ledger(loopId);
    expectEachRunAndEvalOnce(rows, loopId);

    // Runs planned after the damage trained and were scored from files of their own.
    const later = rowsOf(rows, 'run').filter((row) => row.round > before.round + 1 && row.status === 'trained');
    expect(later.length).toBeGreaterThanOrEqual(2);
    const scored = new Set(
      rowsOf(rows, 'eval')
        .filter((row) => row.role === 'test' && row.status === 'ok')
        .map((row) => row.run_id),
    );
    expect(later.filter((row) => !scored.has(row.run_id))).toEqual([]);

    // Steps that needed a damaged file failed (the round ensembles over earlier members), each
    // naming the object and what to do in its log; none waited for it.
    const logs = path.join(loop.configFor(loopId).state_dir, 'logs');
    const texts = await Promise.all(
      (await readdir(logs)).map((name) => readFile(path.join(logs, name), 'utf8').then((text) => ({ name, text }))),
    );
    const failedSteps = texts.filter(({ text }) => /changed or damaged in the store/.test(text));
    expect(failedSteps.length).toBeGreaterThanOrEqual(1);
    for (const { name, text } of failedSteps) {
      expect(text, name).toMatch(/s3:\/\/fleet\/gate\/.*blobs\/sha256\//);
      expect(text, name).not.toMatch(/trying again in [1-9]\d s/);
    }
    const failedEvals = rowsOf(rows, 'eval').filter((row) => row.status === 'failed');
    expect(failedEvals.length).toBeGreaterThanOrEqual(1);
    console.log(
      `damaged store: ${damaged.size} objects overwritten at round ${before.round}; ${failedSteps.length} steps failed naming one ` +
        `(${failedEvals.length} failed eval rows); ${later.length} runs trained and scored after`,
    );
  }, 900_000);
});
