// Which ledger.jsonl a keeper pass left, for the next pass to compare with: the file as the pass
// knew it, never one a stat of the path took in later. A copy changed by someone else while a
// pass ran (cut short, replaced, written) is then read whole by the next pass and repaired, instead
// of being taken for the keeper's own and appended after ever after. Pure.
import type { CopyAppend, CopyFileId } from './copy-files.js';

/**
 * An id no file has (its time is NaN): this keeper does not know what the copy holds, and the
 * next pass reads it whole. It keeps the inode and size the copy should have, for the words of
 * what changed.
 */
export function unknownFile(ino: number, size: number): CopyFileId {
  return { ino, size, mtimeMs: Number.NaN };
}

/** An unknown id (as `unknownFile`) of a copy that was deleted under the pass: its append made a new file. */
function deletedFile(ino: number, size: number): CopyFileId {
  return { ino, size, mtimeMs: Number.NaN, deleted: true };
}

/**
 * The copy as a pass leaves it, for the next pass to compare with: `expected`, the file as the
 * pass knew it before it appended (what it read, or left the pass before), and what the append
 * found and left. A file that was not `expected` when the append opened it (someone cut,
 * replaced or wrote it since), or grew by other than the append, is not taken for the keeper's
 * own. (A stat of the path after the pass would take such a change for the keeper's, and the
 * keeper would append after it ever after.)
 */
export function leftFile(expected: CopyFileId | null, append: CopyAppend | null): CopyFileId | null {
  if (append === null) return expected;
  const { before, bytes, after } = append;
  // Opened as expected (none yet: an empty file the append made), then grown by the append alone.
  const opened = expected === null ? before.size === 0 : sameFile(expected, before);
  if (opened && after.ino === before.ino && after.size === before.size + bytes) return after;
  // The copy the pass knew was deleted after it looked: its append made a new file.
  if (expected !== null && append.created) return deletedFile(expected.ino, expected.size + bytes);
  return unknownFile(expected?.ino ?? after.ino, (expected?.size ?? 0) + bytes);
}

/**
 * What happened to a copy that lost rows under the keeper, for the repair record: `was`, the file
 * the last pass left (`leftFile`), `now`, the file found, `rows`, what it held then.
 */
export function copyChangeWords(was: CopyFileId | null, now: CopyFileId | null, rows: number): string {
  const held = `${rows} rows when this worker last wrote it`;
  if (now === null || was?.deleted === true) return `was deleted (${held})`;
  if (was === null) return `appeared (none when this worker last looked)`;
  if (was.ino !== now.ino) return `was replaced by another file (${held})`;
  if (now.size < was.size) return `was cut short (${was.size} bytes then, ${now.size} now; ${held})`;
  // The file as this keeper left it: history is what changed (a reset abandoned rows it held).
  if (sameFile(was, now)) return `holds rows history no longer gives this loop (a reset, or runs deleted)`;
  return `was written by someone else (${was.size} bytes then, ${now.size} now)`;
}

/** Whether two ids are of one file as it was: its inode, size and time (an unknown id is the same as none). */
export function sameFile(was: CopyFileId | null, now: CopyFileId | null): boolean {
  if (was === null || now === null) return was === now;
  return was.ino === now.ino && was.size === now.size && was.mtimeMs === now.mtimeMs;
}
