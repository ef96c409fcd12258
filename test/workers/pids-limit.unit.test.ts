import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { pidsRefusal, readPidsLimit } from '../../src/workers/pids-limit.js';
import { tempDir } from '../helpers/files-and-errors.js';

/** A fake cgroup mount: `files` maps a path under it to its content; `self` is /proc/self/cgroup. */
async function fakeCgroup(files: Record<string, string>, self = '0::/\n'): Promise<{ root: string; self: string }> {
  const dir = await tempDir();
  const root = path.join(dir, 'cgroup');
  await mkdir(root, { recursive: true });
  for (const [name, content] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, name)), { recursive: true });
    await writeFile(path.join(root, name), `${content}\n`);
  }
  await writeFile(path.join(dir, 'self-cgroup'), self);
  return { root, self: path.join(dir, 'self-cgroup') };
}

describe('readPidsLimit', () => {
  it('reads a cgroup v2 limit at the mount (a container)', async () => {
    const sources = await fakeCgroup({ 'pids.current': '37', 'pids.max': '4096' });
    expect(await readPidsLimit(sources)).toEqual({ kind: 'limited', current: 37, max: 4096, where: sources.root });
  });

  it("reads this process's own v2 cgroup and keeps the ancestor with the least headroom", async () => {
    const sources = await fakeCgroup(
      {
        'lanes/pids.current': '900',
        'lanes/pids.max': '1000',
        'lanes/gpu0/pids.current': '40',
        'lanes/gpu0/pids.max': 'max',
      },
      '0::/lanes/gpu0\n',
    );
    expect(await readPidsLimit(sources)).toEqual({
      kind: 'limited',
      current: 900,
      max: 1000,
      where: path.join(sources.root, 'lanes'),
    });
  });

  it('reads the cgroup v1 pids controller', async () => {
    const sources = await fakeCgroup(
      { 'pids/docker/abc/pids.current': '120', 'pids/docker/abc/pids.max': '2048' },
      '8:pids:/docker/abc\n4:memory:/docker/abc\n',
    );
    expect(await readPidsLimit(sources)).toEqual({
      kind: 'limited',
      current: 120,
      max: 2048,
      where: path.join(sources.root, 'pids/docker/abc'),
    });
  });

  it('has no limit when the files are absent or pids.max is "max"', async () => {
    expect(await readPidsLimit(await fakeCgroup({}))).toEqual({ kind: 'unlimited' });
    expect(await readPidsLimit(await fakeCgroup({ 'pids.current': '12', 'pids.max': 'max' }))).toEqual({
      kind: 'unlimited',
    });
    expect(await readPidsLimit({ root: '/nonexistent/cgroup', self: '/nonexistent/self' })).toEqual({
      kind: 'unlimited',
    });
  });

  it('reads files it cannot make sense of as an error that admits nothing', async () => {
    const reading = await readPidsLimit(await fakeCgroup({ 'pids.current': 'lots', 'pids.max': '100' }));
    expect(reading).toEqual({ kind: 'error', reason: expect.stringContaining('not numbers') as unknown });
    expect(pidsRefusal(reading, 0)).toMatch(/not numbers/);
  });
});

describe('pidsRefusal', () => {
  it('admits while the headroom is at least the flag, and says why not otherwise', () => {
    const reading = (current: number) => ({ kind: 'limited' as const, current, max: 1024, where: '/sys/fs/cgroup' });
    expect(pidsRefusal(reading(512), 512)).toBeNull();
    expect(pidsRefusal(reading(513), 512)).toBe(
      'cgroup /sys/fs/cgroup has 513 of pids.max 1024 tasks in use (511 left), a job needs 512 left (--min-free-pids)',
    );
    expect(pidsRefusal({ kind: 'unlimited' }, 512)).toBeNull();
  });
});
