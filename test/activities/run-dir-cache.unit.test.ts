// The host cache of run directories (activities/support/run-dir-cache.ts) on a real disk.
import { mkdir, mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { IN_STORE_MARKER } from '../../src/artifacts/cache-policy.js';
import {
  DEFAULT_KEEP_LOCAL_GIB,
  keepLocalBytes,
  markInStore,
  runDirOf,
  trimRunsRoot,
  unmarkInStore,
} from '../../src/activities/support/run-dir-cache.js';

let root: string;
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'run-dir-cache-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** A run directory with files of these sizes, marked as in the store (all but `unlisted`), used at `usedAt` (s). */
async function cachedRun(name: string, sizes: Record<string, number>, usedAt: number, unlisted: string[] = []) {
  const dir = join(root, name);
  const refs = [];
  for (const [file, bytes] of Object.entries(sizes)) {
    await mkdir(join(dir, file, '..'), { recursive: true });
    await writeFile(join(dir, file), Buffer.alloc(bytes));
    if (!unlisted.includes(file)) refs.push({ path: join(dir, file), sha256: 'x', bytes });
  }
  await markInStore(dir, refs);
  await utimes(join(dir, IN_STORE_MARKER), usedAt, usedAt);
  return dir;
}

describe('the run directory cache', () => {
  it('finds the run directory of a file under the runs root', () => {
    expect(runDirOf('/r', '/r/champ-g001-r0001-base/checkpoint-0001.pt')).toBe('/r/champ-g001-r0001-base');
    expect(runDirOf('/r', '/r/champ-g001-r0001-base/sub/a.json')).toBe('/r/champ-g001-r0001-base');
    expect(runDirOf('/r', '/r/loose-file')).toBeNull();
    expect(runDirOf('/r', '/state/configs/a.yaml')).toBeNull();
    expect(runDirOf('/r', '/r/../x/a')).toBeNull();
    expect(keepLocalBytes({ url: 's3://b/p' })).toBe(DEFAULT_KEEP_LOCAL_GIB * 1024 ** 3);
    expect(keepLocalBytes({ url: 's3://b/p', keep_local_gib: 0.5 })).toBe(512 * 1024 ** 2);
  });

  it('deletes the listed files of the directories used longest ago until the rest fit, keeping unlisted files', async () => {
    const old = await cachedRun('old', { 'checkpoint-0001.pt': 300, 'sub/scores.jsonl': 100 }, 1_000);
    const mid = await cachedRun('mid', { 'checkpoint-0001.pt': 300, 'notes.txt': 50 }, 2_000, ['notes.txt']);
    const fresh = await cachedRun('new', { 'checkpoint-0001.pt': 300 }, 3_000);
    // Not marked: a run training here, never touched.
    await mkdir(join(root, 'training'));
    await writeFile(join(root, 'training', 'checkpoint-0001.pt'), Buffer.alloc(5_000));

    expect(await trimRunsRoot(root, 500)).toEqual({ dirs: 2, bytes: 700 });
    expect(await readdir(root).then((names) => names.sort())).toEqual(['mid', 'new', 'training']);
    // The old one went whole (its empty folders too); of mid only what was not in the store stayed.
    expect(await readdir(mid)).toEqual(['notes.txt']);
    expect((await readdir(fresh)).sort()).toEqual([IN_STORE_MARKER, 'checkpoint-0001.pt']);
    expect(old).toBe(join(root, 'old'));
    expect(await trimRunsRoot(root, 500)).toEqual({ dirs: 0, bytes: 0 });
  });

  it('never deletes a directory a live process holds; a dead process holds nothing', async () => {
    const held = await cachedRun('held', { 'checkpoint-0001.pt': 100 }, 1_000);
    await writeFile(join(held, `.in-use-${process.pid}-test`), '');
    const dead = await cachedRun('dead', { 'checkpoint-0001.pt': 100 }, 2_000);
    // A pid no process has (above the kernel's pid_max).
    await writeFile(join(dead, '.in-use-99999999-test'), '');
    expect(await trimRunsRoot(root, 0)).toEqual({ dirs: 1, bytes: 100 });
    expect(await readdir(root)).toEqual(['held']);
  });

  it('takes a directory about to be trained again out of the cache', async () => {
    const dir = await cachedRun('again', { 'checkpoint-0001.pt': 100 }, 1_000);
    await unmarkInStore(dir);
    expect(await trimRunsRoot(root, 0)).toEqual({ dirs: 0, bytes: 0 });
    expect(await readdir(dir)).toEqual(['checkpoint-0001.pt']);
  });
});
