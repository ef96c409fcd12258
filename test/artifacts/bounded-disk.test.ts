// A host's disk kept bounded by the store (loop.yaml `artifacts: keep_local_gib`, docs/artifacts.md):
// with 0 GiB a host keeps no run directory past the step that used it, so every later step
// (evaluation, round ensemble, reserve check, package) fetches what it reads from the store
// again, and the loop records the same kinds of rows as ever. Real dev server, in-process
// workers, fixture stack and S3 server (SeaweedFS).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { isCacheFile } from '../../src/artifacts/cache-policy.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { expectEachRunAndEvalOnce, packagingIdle, rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { storeForFile } from '../helpers/object-store.js';

describe('a host that keeps no run directory past its step (keep_local_gib: 0)', () => {
  let loop: LoopHarness | undefined;
  const fleetStore = storeForFile(async () => loop?.dispose());

  it('deletes each run directory once its files are in the store and fetches them again for every later step', async () => {
    const loopId = 'bounded';
    loop = await createLoopHarness({
      candidates: [{ name: 'base' }, { name: 'wide', overrides: { fixture_quality: 0.7 } }],
    });
    const started = await loop.startWith(loopId, {
      artifacts: { ...fleetStore.artifacts, keep_local_gib: 0 },
      saturation_evals: 20,
      max_reserve_checks: 1,
    });
    expect(started.kind).toBe('started');
    await loop.waitFor(loopId, (view) => view.generation >= 2 && view.round >= 1, 300_000);
    await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await loop.result(loopId);
    // The stop hands packaging over: the last champion's package step ends (and trims) before its workflow does.
    await packagingIdle(loop.client, loopId);
    const { rows } = await loop.ledger(loopId);
    expectEachRunAndEvalOnce(rows, 'the bounded loop');
    const config = loop.configFor(loopId);

    // Scored, ensembled, checked and packaged from fetched files: every step went through.
    const trained = rowsOf(rows, 'run').filter((row) => row.status === 'trained');
    expect(trained.length).toBeGreaterThanOrEqual(4);
    const tests = rowsOf(rows, 'eval').filter((row) => row.role === 'test');
    expect(tests.length).toBeGreaterThanOrEqual(trained.length);
    expect(tests.every((row) => row.status === 'ok')).toBe(true);
    expect(rowsOf(rows, 'run').some((row) => row.status === 'ensemble')).toBe(true);
    expect(rowsOf(rows, 'reserve_check').map((row) => row.status)).toEqual(['ok']);
    expect(rowsOf(rows, 'package').some((row) => row.event === 'finished' && row.exit_code === 0)).toBe(true);

    // No checkpoint of a run is left on the disk once no step uses it.
    for (const run of trained) {
      const left = await readdir(path.join(config.runs_root, run.run_id), { recursive: true }).catch(() => []);
      expect(
        left.filter((name) => !isCacheFile(path.basename(name)) && name.endsWith('.pt')),
        run.run_id,
      ).toEqual([]);
    }
    // Its evaluation fetched it back from the store after the training's step deleted it.
    const first = trained[0];
    const log = await readFile(
      path.join(config.state_dir, 'logs', `${first?.run_id ?? ''}.test.eval.log`),
      'utf8',
    ).catch(() => '');
    expect(log).toMatch(/artifacts: fetched \d+ bytes of \d+ files from the store/);
  }, 600_000);
});
