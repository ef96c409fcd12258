import { existsSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/devserver/dev-server.js';
import { checkOutDir, makeOutDir } from '../../src/client/out-dir.js';
import { mountTmpfs } from '../helpers/tmpfs.js';
import { championLoop } from './champion-loop-cli.js';

// `champion-loop ledger --out DIR` where DIR cannot be made: the error names what is in the way
// (a file where a folder should be, a dangling link, no permission), before any export; missing
// parent folders are simply created.

describe('ledger --out into a folder that cannot be made', () => {
  let dir: string;
  let file: string;

  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-out-'));
    file = path.join(dir, 'notes.txt');
    await writeFile(file, 'a file, not a folder\n');
  });

  afterAll(async () => {
    await chmod(path.join(dir, 'locked'), 0o755).catch(() => undefined);
    await rm(dir, { recursive: true, force: true });
  });

  it('missing parent folders are created', async () => {
    const out = path.join(dir, 'a', 'b', 'ledger');
    await checkOutDir(out);
    expect(existsSync(path.join(dir, 'a'))).toBe(false);
    await makeOutDir(out);
    expect(existsSync(out)).toBe(true);
  });

  it('a file among the parents: that file is named, not the folder asked for', async () => {
    const out = path.join(file, 'x', 'ledger');
    await expect(makeOutDir(out)).rejects.toThrow(
      `--out ${out}: cannot create this folder: ${file} is a file, not a folder`,
    );
  });

  it('the folder asked for is a file', async () => {
    await expect(checkOutDir(file)).rejects.toThrow(
      `--out ${file} is a file, not a folder (--out takes a folder to write into)`,
    );
  });

  it('a parent that is a link to nothing: the link and where it points', async () => {
    const link = path.join(dir, 'gone');
    await symlink(path.join(dir, 'nowhere'), link);
    await expect(checkOutDir(path.join(link, 'ledger'))).rejects.toThrow(
      `cannot create this folder: ${link} is a link to ${path.join(dir, 'nowhere')}, which does not exist`,
    );
  });

  it('a parent on a read-only file system: said so, not "no permission" (issue 23)', async () => {
    const mounted = await mountTmpfs(path.join(dir, 'readonly'), { sizeKiB: 64, readOnly: true });
    try {
      await expect(checkOutDir(path.join(mounted.dir, 'sub', 'ledger'))).rejects.toThrow(
        `cannot create this folder: ${mounted.dir} is on a read-only file system`,
      );
      await expect(checkOutDir(mounted.dir)).rejects.toThrow(
        `--out ${mounted.dir}: this folder is on a read-only file system`,
      );
    } finally {
      await mounted.unmount();
    }
  });

  it.skipIf(process.getuid?.() === 0)('a parent without write permission: that folder is named', async () => {
    const locked = path.join(dir, 'locked');
    await mkdir(locked);
    await chmod(locked, 0o555);
    await expect(checkOutDir(path.join(locked, 'sub', 'ledger'))).rejects.toThrow(
      `cannot create this folder: no permission to create folders in ${locked}`,
    );
  });

  it('the command says so at once, before it looks for a server or a loop', async () => {
    const out = path.join(file, 'ledger');
    const result = await championLoop([
      'ledger',
      'some-loop',
      '--out',
      out,
      '--address',
      `127.0.0.1:${await freePort()}`,
    ]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toBe(
      `champion-loop: --out ${out}: cannot create this folder: ${file} is a file, not a folder`,
    );
  });
});
