import { mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { lanePidFile, removeLanePid, runningLanePid, writeLanePid } from '../../src/workers/lane-pid-file.js';

describe("a lane worker's pid file", () => {
  it('lives in $XDG_RUNTIME_DIR (else the temp dir), one per task queue', () => {
    expect(lanePidFile('champion-loop.gpu-a.gpu0', { XDG_RUNTIME_DIR: '/run/user/1000' })).toBe(
      '/run/user/1000/champion-loop/champion-loop.gpu-a.gpu0.pid',
    );
    expect(lanePidFile('q', {})).toBe(path.join(tmpdir(), 'champion-loop', 'q.pid'));
  });

  it('names a running worker, and nothing once that process is gone or the file is not a pid', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lane-pid-'));
    const file = path.join(dir, 'sub', 'q.pid');
    expect(await runningLanePid(file)).toBeNull();
    await writeLanePid(file);
    expect(await runningLanePid(file)).toBe(process.pid);
    const child = execa('true');
    await child;
    await writeLanePid(file, child.pid);
    expect(await runningLanePid(file)).toBeNull();
    await writeFile(file, 'not a pid\n');
    expect(await runningLanePid(file)).toBeNull();
  });

  it("is removed only by the worker it names: a newer worker's file stays", async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'lane-pid-'));
    const file = path.join(dir, 'q.pid');
    await writeLanePid(file, 4242);
    await removeLanePid(file);
    expect(await readFile(file, 'utf8')).toBe('4242\n');
    await removeLanePid(file, 4242);
    await expect(readFile(file, 'utf8')).rejects.toThrow(/ENOENT/);
  });
});
