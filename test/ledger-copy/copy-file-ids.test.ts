import { appendFile, mkdir, mkdtemp, readFile, rename, rm, truncate, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { copyChangeWords, leftFile, sameFile } from '../../src/ledger-copy/copy-file-ids.js';
import {
  appendLedgerRows,
  copyFileId,
  ledgerCopyPath,
  readCopyFile,
  type CopyFileId,
} from '../../src/ledger-copy/copy-files.js';
import { ledgerLine } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow } from '../../src/ledger/rows.js';

// A clean-clone CI caught the keeper appending after a copy cut short: the cut landed while a pass
// ran, and the pass, taking the file's id from a stat of the path once it had appended, took the
// cut file for its own. Here the keeper's steps run on a real file, with someone else's change
// falling between any two of them: whenever the id a pass left matches the file the next pass
// finds, the file holds exactly what the keeper believes it holds. (An edit of the same size
// within one clock tick of the keeper's write is not seen this way: the full check every 10
// minutes finds it.)

const row = (n: number): LedgerRow => ({
  type: 'generation',
  event: 'start',
  generation: n,
  reason: 'initial',
  split_seed: n,
  previous_champion: null,
  previous_pareto_set: [],
  started: `2026-12-03T00:00:00.${String(n % 1000).padStart(3, '0')}Z`,
});

type Change = 'cut' | 'append' | 'delete' | 'replace';
type When = 'before the pass' | 'after its stat or read' | 'after its append';

async function change(file: string, kind: Change): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => '');
  switch (kind) {
    case 'cut':
      if (text.length > 0) await truncate(file, Math.floor(text.length / 2));
      break;
    case 'append':
      await appendFile(file, '{"type":"eval","someone":"else"}\n');
      break;
    case 'delete':
      await rm(file, { force: true });
      break;
    case 'replace':
      // Another file in its place (a restore), one line shorter or longer.
      await writeFile(`${file}.other`, text.split('\n').slice(1).join('\n') + (text === '' ? 'x\n' : ''));
      await rename(`${file}.other`, file);
      break;
  }
}

describe('which copy a keeper pass left', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'copy-ids-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('an append through the handle it opened: the file as it was opened and as it was left', async () => {
    const stateDir = path.join(dir, 'plain');
    const appended = await appendLedgerRows(stateDir, [row(1), row(2)]);
    expect(appended?.before.size).toBe(0);
    expect(appended?.after).toEqual(await copyFileId(stateDir));
    expect(appended?.after.size).toBe(appended?.bytes);
    expect(await appendLedgerRows(stateDir, [])).toBeNull();
    expect(leftFile(appended?.after ?? null, null)).toEqual(appended?.after);
  });

  it("a copy deleted between a pass's look and its append is said to be deleted, not replaced by the file the append made", async () => {
    const stateDir = path.join(dir, 'deleted-mid-pass');
    const first = await appendLedgerRows(stateDir, [row(1), row(2), row(3)]);
    expect(first?.created).toBe(true);
    const looked = await copyFileId(stateDir);
    expect(sameFile(leftFile(null, first ?? null), looked)).toBe(true);
    // The next pass looks (the file as it left it), then the copy is deleted, then the pass appends.
    await rm(ledgerCopyPath(stateDir));
    const append = await appendLedgerRows(stateDir, [row(4)]);
    expect(append?.created).toBe(true);
    const left = leftFile(looked, append);
    const found = await copyFileId(stateDir);
    expect(sameFile(left, found)).toBe(false);
    expect(copyChangeWords(left, found, 4)).toBe('was deleted (4 rows when this worker last wrote it)');
    // An append to a copy that is there made nothing.
    expect((await appendLedgerRows(stateDir, [row(5)]))?.created).toBe(false);
  });

  it('words each change of a copy that lost rows (pure)', () => {
    const was: CopyFileId = { ino: 7, size: 300, mtimeMs: 1 };
    const rows = '3 rows when this worker last wrote it';
    expect(copyChangeWords(was, null, 3)).toBe(`was deleted (${rows})`);
    expect(copyChangeWords({ ...was, mtimeMs: Number.NaN, deleted: true }, { ino: 8, size: 100, mtimeMs: 2 }, 3)).toBe(
      `was deleted (${rows})`,
    );
    expect(copyChangeWords(was, { ino: 8, size: 100, mtimeMs: 2 }, 3)).toBe(`was replaced by another file (${rows})`);
    expect(copyChangeWords(was, { ino: 7, size: 100, mtimeMs: 2 }, 3)).toBe(
      `was cut short (300 bytes then, 100 now; ${rows})`,
    );
    expect(copyChangeWords(null, was, 0)).toBe('appeared (none when this worker last looked)');
    expect(copyChangeWords(was, was, 3)).toBe(
      'holds rows history no longer gives this loop (a reset, or runs deleted)',
    );
    expect(copyChangeWords(was, { ino: 7, size: 400, mtimeMs: 2 }, 3)).toBe(
      'was written by someone else (300 bytes then, 400 now)',
    );
  });

  it("never takes someone else's change, made between any two of its steps, for its own", async () => {
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            kind: fc.constantFrom<Change>('cut', 'append', 'delete', 'replace'),
            when: fc.constantFrom<When>('before the pass', 'after its stat or read', 'after its append'),
            changed: fc.boolean(),
            rows: fc.integer({ min: 0, max: 3 }),
          }),
          { minLength: 1, maxLength: 8 },
        ),
        async (passes) => {
          runs += 1;
          const stateDir = path.join(dir, `run-${runs}`);
          const file = ledgerCopyPath(stateDir);
          await mkdir(stateDir);
          let left: CopyFileId | null = null;
          let believed = '';
          let next = 0;
          for (const pass of passes) {
            const outside = async (when: When) => {
              if (pass.changed && pass.when === when) await change(file, pass.kind);
            };
            await outside('before the pass');
            const found = await copyFileId(stateDir);
            let expected: CopyFileId | null;
            if (sameFile(left, found)) {
              // The id matches: the keeper appends without reading, so the file must hold what it believes.
              expect(await readFile(file, 'utf8').catch(() => '')).toBe(believed);
              expected = found;
            } else {
              // Not as it left it: the keeper reads it whole (and would repair it by history).
              const read = await readCopyFile(stateDir);
              believed = read.text;
              expected = read.file;
            }
            await outside('after its stat or read');
            const rows = Array.from({ length: pass.rows }, () => row((next += 1)));
            const append = await appendLedgerRows(stateDir, rows);
            left = leftFile(expected, append);
            believed += rows.map((r) => `${ledgerLine(r)}\n`).join('');
            await outside('after its append');
          }
          // And once more at the end, as the next pass would find it.
          if (sameFile(left, await copyFileId(stateDir)))
            expect(await readFile(file, 'utf8').catch(() => '')).toBe(believed);
        },
      ),
      { numRuns: 60 },
    );
  });
});
