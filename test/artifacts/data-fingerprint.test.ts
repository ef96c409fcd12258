import { mkdir, mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { dataMismatch, fingerprintOf } from '../../src/artifacts/data-fingerprint.js';
import { trainRun } from '../../src/activities/train-run.js';
import { DATA_MISMATCH } from '../../src/contract/failures.js';
import { fixtureLoop, preparedTrain } from '../activities/fixture-loop.js';

const made: string[] = [];
afterEach(async () => {
  for (const dir of made.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function dataRoot(files: Record<string, string>): Promise<string> {
  const root = await mkdtemp(path.join(tmpdir(), 'champion-loop-data-'));
  made.push(root);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), text);
  }
  return root;
}

describe("a host's data_root against the orchestrator's", () => {
  const files = { 'dataset.json': '{"items": 400}', 'images/a.png': 'aaaa', 'images/b.png': 'bb' };

  it('agrees for a copy with the same files and sizes, wherever it lives', async () => {
    const here = await fingerprintOf(await dataRoot(files));
    const there = await fingerprintOf(await dataRoot(files));
    expect(here).toEqual(there);
    expect(here).toMatchObject({ files: 3, bytes: 20 });
    expect(dataMismatch('/data', there, here)).toBeNull();
  });

  it('tells a copy with a file missing, one more, one of another length, or no root at all, naming both counts', async () => {
    const orchestrator = await fingerprintOf(await dataRoot(files));
    const { 'images/b.png': _gone, ...fewer } = files;
    const copies = [
      fewer,
      { ...files, 'images/c.png': 'c' },
      { ...files, 'images/b.png': 'bbb' },
      { ...files, 'images/b.png': undefined, 'images/B.png': 'bb' },
    ];
    for (const copy of copies) {
      const defined = Object.fromEntries(Object.entries(copy).filter(([, text]) => text !== undefined)) as Record<
        string,
        string
      >;
      const mismatch = dataMismatch('/data', orchestrator, await fingerprintOf(await dataRoot(defined)));
      expect(mismatch).toMatch(
        /^data_root \/data on this host is not the orchestrator's: \d+ files, \d+ bytes here, 3 files, 20 bytes there/,
      );
      expect(mismatch).toContain('sync it from the orchestrator');
    }
    expect(await fingerprintOf('/nonexistent/champion-loop-data')).toMatchObject({ files: 0, bytes: 0 });
  });

  it('stops a training on a lane whose copy differs, before its trainer starts, saying why', async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base');
    const orchestrator = { files: 7, bytes: 1234, sha256: 'f'.repeat(64) };
    const refused = await trainRun({ ...input, data: orchestrator }).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(ApplicationFailure);
    expect((refused as ApplicationFailure).type).toBe(DATA_MISMATCH);
    expect((refused as ApplicationFailure).nonRetryable).toBe(true);
    expect((refused as ApplicationFailure).message).toContain('7 files, 1234 bytes there');
    // Nothing ran: no run directory, no owner marker.
    await expect(stat(path.join(paths.runsRoot, input.runId))).rejects.toThrow(/ENOENT/);
    // With the orchestrator's own fingerprint it trains.
    const outcome = await trainRun({ ...input, data: await fingerprintOf(paths.dataRoot) });
    expect(outcome.status).toBe('trained');
  });
});
