import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

// Issue 25: how the SDK writes a workflow's history (its patch markers, the order it hands a
// task's events to the code) is known in one folder, the history reader: src/ledger/history.

const SRC = fileURLToPath(new URL('../../src/', import.meta.url));

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((entry) =>
      entry.isDirectory()
        ? sourceFiles(path.join(dir, entry.name))
        : Promise.resolve(entry.name.endsWith('.ts') ? [path.join(dir, entry.name)] : []),
    ),
  );
  return nested.flat();
}

describe('what the SDK writes into history', () => {
  it('is read only in src/ledger/history: no other source file names the patch marker or the handling order', async () => {
    const files = await sourceFiles(SRC);
    const offenders: string[] = [];
    for (const file of files) {
      const relative = path.relative(SRC, file);
      if (relative.startsWith(`ledger${path.sep}history${path.sep}`)) continue;
      const text = await readFile(file, 'utf8');
      if (/core_patch|handling-order|handlingOrder|patchedFrom/.test(text)) offenders.push(relative);
    }
    expect(files.length).toBeGreaterThan(50);
    expect(offenders).toEqual([]);
  });
});
