// The loop's own ledger.jsonl and state.json in its state dir, at the seed's paths: a copy of
// what history holds, appended as rows are decided, so the record outlives history.
import { mkdir, open, readFile, rename, stat, truncate, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ledgerLine, parseLedger } from '../ledger/ledger-lines.js';
import type { StateJson } from '../ledger/loop-state.js';
import type { LedgerRow } from '../ledger/rows.js';

export const LEDGER_FILE = 'ledger.jsonl';
const STATE_FILE = 'state.json';

export function ledgerCopyPath(stateDir: string): string {
  return path.join(stateDir, LEDGER_FILE);
}

export function stateCopyPath(stateDir: string): string {
  return path.join(stateDir, STATE_FILE);
}

/**
 * The copy's rows; none when there is no copy yet. A last line a crash tore mid-write is left out;
 * with `repair` (the writer, before it appends) it is cut off the file, so the next append starts
 * on a line of its own and no row is half there.
 */
export async function readLedgerCopy(stateDir: string, { repair }: { repair: boolean }): Promise<LedgerRow[]> {
  const file = ledgerCopyPath(stateDir);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
  const parsed = parseLedger(text, file);
  if (!repair) return parsed.rows;
  if (parsed.wholeLength < text.length) await truncate(file, Buffer.byteLength(text.slice(0, parsed.wholeLength)));
  // A whole row the crash left without its newline: end its line before anything is appended.
  else if (text.length > 0 && !text.endsWith('\n')) await writeFile(file, '\n', { flag: 'a' });
  return parsed.rows;
}

/** An append that did not reach the disk whole: the copy is as it was before it. */
class CopyWriteError extends Error {
  constructor(file: string, cause: unknown) {
    const code = (cause as NodeJS.ErrnoException).code;
    const why =
      code === 'ENOSPC' || code === 'EDQUOT'
        ? 'no space left on its device'
        : code === 'EROFS'
          ? 'its file system is read-only'
          : (cause as Error).message;
    super(
      `${file}: rows not appended (${why}); the copy is left as it was, whole rows only, and history still holds ` +
        'every row: the copy catches up on its own once the file can be written again',
      { cause },
    );
    this.name = 'CopyWriteError';
  }
}

/**
 * Append rows in one write, flushed to disk before this returns. A write the disk takes only in
 * part (a full disk takes what fits) is cut back to where the file ended before it, so a failed
 * append leaves no torn row for the next one to run into.
 */
export async function appendLedgerRows(stateDir: string, rows: readonly LedgerRow[]): Promise<void> {
  if (rows.length === 0) return;
  await mkdir(stateDir, { recursive: true });
  const file = ledgerCopyPath(stateDir);
  const bytes = Buffer.from(rows.map((row) => `${ledgerLine(row)}\n`).join(''));
  const handle = await open(file, 'a');
  try {
    const { size } = await handle.stat();
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

/** Which file ledger.jsonl is and how long: enough to see it cut short, replaced or deleted. */
export interface CopyFileId {
  readonly ino: number;
  readonly size: number;
}

/** The state dir's ledger.jsonl as a file (inode, size); null when there is none. */
export async function copyFileId(stateDir: string): Promise<CopyFileId | null> {
  try {
    const { ino, size } = await stat(ledgerCopyPath(stateDir));
    return { ino, size };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}
