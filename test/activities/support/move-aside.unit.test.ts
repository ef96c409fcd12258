import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { moveAside } from '../../../src/activities/support/move-aside.js';
import { fixtureLoop } from '../fixture-loop.js';

describe('moveAside', () => {
  it('renames a file to the first free .aside-N and never overwrites an earlier one', async () => {
    const { workdir } = await fixtureLoop();
    const path = join(workdir, 'scores.jsonl');
    await writeFile(path, 'first\n');
    expect(await moveAside(path)).toBe(`${path}.aside-1`);
    await writeFile(path, 'second\n');
    expect(await moveAside(path)).toBe(`${path}.aside-2`);
    expect(await readFile(`${path}.aside-1`, 'utf8')).toBe('first\n');
    expect(await readFile(`${path}.aside-2`, 'utf8')).toBe('second\n');
  });

  it('moves a directory with its contents', async () => {
    const { workdir } = await fixtureLoop();
    const dir = join(workdir, 'run');
    await mkdir(dir);
    await writeFile(join(dir, 'checkpoint-0001.pt'), '{}');
    expect(await moveAside(dir)).toBe(`${dir}.aside-1`);
    expect(await readdir(`${dir}.aside-1`)).toEqual(['checkpoint-0001.pt']);
  });

  it('does nothing when nothing is there', async () => {
    const { workdir } = await fixtureLoop();
    expect(await moveAside(join(workdir, 'absent'))).toBeNull();
    expect(await readdir(workdir)).toEqual(['data']);
  });
});
