// An ensemble manifest the store did not take when the orchestrator wrote it (docs/artifacts.md,
// "Faults"): the lane that scores the ensemble, on a host without the file, writes the same bytes
// from the run row's members, checks them by the row's sha256, uploads them and names them on
// its eval row. Real activities, fixture stack and S3 server (SeaweedFS); no Temporal needed.
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { evaluateRun } from '../../src/activities/evaluate-run.js';
import { CONTRACT_ERROR } from '../../src/activities/support/step-errors.js';
import { trainRun } from '../../src/activities/train-run.js';
import type { LoopPaths } from '../../src/activities/types.js';
import type { RunRow } from '../../src/ledger/rows.js';
import { writeEnsembleManifest } from '../../src/activities/write-ensemble-manifest.js';
import { blobKey } from '../../src/artifacts/file-store.js';
import { ObjectStore } from '../../src/artifacts/object-store.js';
import { roundManifestName } from '../../src/rules/ids.js';
import { roundEnsembleRun } from '../../src/workflows/ensemble-runs.js';
import { storeForFile } from '../helpers/object-store.js';
import { fixtureCommands, fixtureLoop, preparedTrain, runRowOf } from './fixture-loop.js';

async function members(paths: LoopPaths) {
  const trained = [];
  for (const [name, quality] of [
    ['one', 0.6],
    ['two', 0.8],
  ] as const) {
    const input = await preparedTrain(paths, name, { fixture_quality: quality });
    const outcome = await trainRun(input);
    expect(outcome.status).toBe('trained');
    trained.push(runRowOf(input, outcome, name));
  }
  return trained.map((run) => ({
    run_id: run.run_id,
    config: run.config_path,
    checkpoint: join(paths.runsRoot, run.run_id, run.checkpoints.at(-1) ?? ''),
  }));
}

describe('an ensemble manifest the store did not take', () => {
  const fleetStore = storeForFile(() => Promise.resolve());
  /** The ensemble scored on test by a lane of the fleet. */
  const scoreOnLane = (paths: LoopPaths, run: RunRow, name: string) =>
    evaluateRun({
      paths,
      commands: fixtureCommands,
      run,
      checkpoints: [name],
      role: 'test',
      artifacts: fleetStore.artifacts,
    });

  it('is written again from the run row on the host that scores it, checked by sha256, and uploaded there', async () => {
    const paths = await fixtureLoop();
    const pairs = await members(paths);
    const name = roundManifestName(1);
    // The orchestrator's store refuses (nothing listens there): the manifest stays on its disk.
    const refused = { url: 's3://fleet/gate', endpoint: 'http://127.0.0.1:9' };
    const written = await writeEnsembleManifest({ paths, generation: 1, name, members: pairs, artifacts: refused });
    expect(written.files).toEqual([]);
    // The lane is another host: it has no manifest.
    await rm(written.path);
    const run = roundEnsembleRun(1, 1, written, pairs, 'now');
    const [row] = await scoreOnLane(paths, run, name);
    expect(row?.status).toBe('ok');
    const ref = row?.files?.find((file) => file.path === written.path);
    expect(ref?.sha256).toBe(written.sha256);
    expect(JSON.parse(await readFile(written.path, 'utf8'))).toEqual({
      members: pairs.map(({ config, checkpoint }) => ({ config, checkpoint })),
    });
    const store = new ObjectStore(fleetStore.artifacts);
    try {
      expect(await store.storedSha256(blobKey(store, written.sha256))).toBe(written.sha256);
    } finally {
      store.close();
    }
  }, 120_000);

  it('is refused, naming both sha256s, when the row names members other than the manifest had', async () => {
    const paths = await fixtureLoop();
    const pairs = await members(paths);
    const name = roundManifestName(1);
    const written = await writeEnsembleManifest({ paths, generation: 1, name, members: pairs });
    await rm(written.path);
    const run = roundEnsembleRun(1, 1, written, [...pairs].reverse(), 'now');
    const failure = await scoreOnLane(paths, run, name).catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(ApplicationFailure);
    expect((failure as ApplicationFailure).type).toBe(CONTRACT_ERROR);
    expect((failure as ApplicationFailure).message).toContain(`the row says ${written.sha256}`);
    // Nothing left where a retry would take it as the manifest.
    await expect(readFile(written.path)).rejects.toMatchObject({ code: 'ENOENT' });
  }, 120_000);
});
