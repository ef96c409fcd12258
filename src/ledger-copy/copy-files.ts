// The loop's own ledger.jsonl and state.json in its state dir, at the seed's paths: a copy of
// what history holds, appended as rows are decided, so the record outlives history.
import { constants } from 'node:fs';
import { mkdir, open, readFile, rename, rm, stat, writeFile, type FileHandle } from 'node:fs/promises';
import path from 'node:path';
import { ledgerLine, parseLedger } from '../ledger/ledger-lines.js';
import type { StateJson } from '../ledger/loop-state.js';
import type { LedgerRow } from '../ledger/rows.js';
import { sameFile, unknownFile } from './copy-file-ids.js';

export const LEDGER_FILE = 'ledger.jsonl';
const STATE_FILE = 'state.json';

export function ledgerCopyPath(stateDir: string): string {
  return path.join(stateDir, LEDGER_FILE);
}

export function stateCopyPath(stateDir: string): string {
  return path.join(stateDir, STATE_FILE);
}

/** The copy's text; '' when there is no copy yet. */
export async function readCopyText(stateDir: string): Promise<string> {
  try {
    return await readFile(ledgerCopyPath(stateDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}

/**
 * The copy's text and the file it was read from ('' and null when there is none), through one
 * handle: a file written while it was read is returned as unknown (copy-file-ids.ts).
 */
export async function readCopyFile(stateDir: string): Promise<{ text: string; file: CopyFileId | null }> {
  let handle;
  try {
    handle = await open(ledgerCopyPath(stateDir), 'r');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: '', file: null };
    throw error;
  }
  try {
    const before = fileId(await handle.stat());
    const text = await handle.readFile('utf8');
    const after = fileId(await handle.stat());
    return { text, file: sameFile(before, after) ? after : unknownFile(after.ino, after.size) };
  } finally {
    await handle.close();
  }
}

/** The copy's rows; none when there is no copy yet. A last line a crash tore mid-write is left out. */
export async function readLedgerCopy(stateDir: string): Promise<LedgerRow[]> {
  return parseLedger(await readCopyText(stateDir), ledgerCopyPath(stateDir)).rows;
}

/** An append that did not reach the disk whole: the copy is as it was before it. */
class CopyWriteError extends Error {
  constructor(file: string, cause: unknown, what = 'rows not appended') {
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOSPC' || code === 'EDQUOT'
        ? 'no space left on its device'
        : code === 'EROFS'
          ? 'its file system is read-only'
          : (cause as Error).message;
    super(
      `${file}: ${what} (${why}); the copy is left as it was, whole rows only, and history still holds ` +
        'every row: the copy catches up on its own once the file can be written again',
      { cause },
    );
    this.name = 'CopyWriteError';
  }
}

/** What an append found and left, read from the handle it wrote through (not the path, which another may change meanwhile). */
export interface CopyAppend {
  /** The file when the append opened it, before it wrote. */
  readonly before: CopyFileId;
  /** The bytes the append added. */
  readonly bytes: number;
  /** The file just after the append. */
  readonly after: CopyFileId;
  /** The append made the file: there was none at the path when it opened it (the copy was deleted, or never made). */
  readonly created: boolean;
}

/**
 * Open the copy to append, saying whether this made it: made only when there is none (O_EXCL),
 * else opened without O_CREAT, so a copy deleted between the two tries is made by the first again.
 */
async function openToAppend(file: string): Promise<{ handle: FileHandle; created: boolean }> {
  for (;;) {
    try {
      return { handle: await open(file, 'ax'), created: true };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    try {
      return { handle: await open(file, constants.O_WRONLY | constants.O_APPEND), created: false };
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
  }
}

/**
 * Append rows in one write, flushed to disk before this returns; null when there are none (the
 * file is not touched). A write the disk takes only in part (a full disk takes what fits) is cut
 * back to where the file ended before it, so a failed append leaves no torn row for the next one
 * to run into.
 */
export async function appendLedgerRows(
  stateDir: string,
  rows: readonly LedgerRow[],
  { newlineFirst = false }: { newlineFirst?: boolean } = {},
): Promise<CopyAppend | null> {
  if (rows.length === 0) return null;
  await mkdir(stateDir, { recursive: true });
  const file = ledgerCopyPath(stateDir);
  // newlineFirst: the copy's last row lacks its newline (a crash between the two).
  const bytes = Buffer.from((newlineFirst ? '\n' : '') + rows.map((row) => `${ledgerLine(row)}\n`).join(''));
  const { handle, created } = await openToAppend(file);
  try {
    const before = fileId(await handle.stat());
    const { size } = before;
    try {
      for (let written = 0; written < bytes.length;) {
        written += (await handle.write(bytes, written, bytes.length - written)).bytesWritten;
      }
      await handle.sync();
    } catch (error) {
      await handle.truncate(size).catch(() => undefined);
      await handle.sync().catch(() => undefined);
      throw new CopyWriteError(file, error);
    }
    return { before, bytes: bytes.length, after: fileId(await handle.stat()), created };
  } finally {
    await handle.close();
  }
}

/**
 * Replace the copy whole with these rows (a repair): written beside it and flushed, then renamed
 * over it and the rename flushed, so a crash leaves either the old copy or the new one. A disk
 * that cannot take the new one leaves the old one as it was.
 */
export async function rewriteLedgerCopy(stateDir: string, rows: readonly LedgerRow[]): Promise<CopyFileId> {
  await mkdir(stateDir, { recursive: true });
  const file = ledgerCopyPath(stateDir);
  const temporary = `${file}.${process.pid}.repair`;
  let written: CopyFileId;
  try {
    const handle = await open(temporary, 'w');
    try {
      await handle.writeFile(rows.map((row) => `${ledgerLine(row)}\n`).join(''));
      await handle.sync();
      written = fileId(await handle.stat());
    } finally {
      await handle.close();
    }
    await rename(temporary, file);
  } catch (error) {
    await rm(temporary, { force: true }).catch(() => undefined);
    throw new CopyWriteError(file, error, 'not repaired');
  }
  await syncDir(stateDir);
  // The rename keeps the file's inode, size and time: this is the copy as the repair left it.
  return written;
}

/** What the keeper found wrong with a copy and did about it: a line of `<state_dir>/ledger.repairs.jsonl`. */
export interface CopyRepair {
  readonly time: string;
  readonly loop_id: string;
  readonly ledger: string;
  /** What was wrong, in words. */
  readonly found: string;
  /** Lines left out of the repaired copy, as they were. */
  readonly removed: readonly { readonly kind: string; readonly line: number; readonly text: string }[];
  /** Rows history holds that the copy lacked between rows it held, put back in place. */
  readonly restored: number;
  /** Rows of history the copy held out of order, put back in order. */
  readonly reordered: number;
  /** Rows appended after the repair (what the copy lacked at its end). */
  readonly appended: number;
  /** Rows the copy holds after the repair. */
  readonly rows: number;
}

const REPAIRS_FILE = 'ledger.repairs.jsonl';

export function repairsPath(stateDir: string): string {
  return path.join(stateDir, REPAIRS_FILE);
}

/** Record a repair before it is made: the lines it removes are on disk before they leave the copy. */
export async function recordCopyRepair(stateDir: string, repair: CopyRepair): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  const handle = await open(repairsPath(stateDir), 'a');
  try {
    await handle.write(`${JSON.stringify(repair)}\n`);
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** The repairs recorded so far: how many, and the last (null when none, or the file cannot be read). */
export async function copyRepairs(stateDir: string): Promise<{ count: number; last: CopyRepair | null }> {
  let text: string;
  try {
    text = await readFile(repairsPath(stateDir), 'utf8');
  } catch {
    return { count: 0, last: null };
  }
  const lines = text.split('\n').filter((line) => line.trim() !== '');
  try {
    return { count: lines.length, last: lines.length > 0 ? (JSON.parse(lines.at(-1) as string) as CopyRepair) : null };
  } catch {
    return { count: lines.length, last: null };
  }
}

async function syncDir(dir: string): Promise<void> {
  const handle = await open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Replace state.json whole (write beside it, then rename), so a reader never sees half of one. */
export async function writeStateCopy(stateDir: string, state: StateJson): Promise<void> {
  await mkdir(stateDir, { recursive: true });
  const file = stateCopyPath(stateDir);
  const temporary = `${file}.${process.pid}.tmp`;
  await writeFile(temporary, `${JSON.stringify(state, null, 2)}\n`);
  await rename(temporary, file);
}

/** Which file ledger.jsonl is, how long and when last written: enough to see it cut short, replaced, deleted or edited. */
export interface CopyFileId {
  readonly ino: number;
  readonly size: number;
  readonly mtimeMs: number;
  /**
   * Only on an id a keeper pass leaves (never a stat): the copy it knew was deleted before its
   * append, which made a new file; the next pass says the copy was deleted, not replaced.
   */
  readonly deleted?: true;
}

/** The state dir's ledger.jsonl as a file (inode, size); null when there is none. */
export async function copyFileId(stateDir: string): Promise<CopyFileId | null> {
  try {
    return fileId(await stat(ledgerCopyPath(stateDir)));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

function fileId({ ino, size, mtimeMs }: CopyFileId): CopyFileId {
  return { ino, size, mtimeMs };
}
