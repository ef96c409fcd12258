import { lstat, readdir } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A cheap mark of what lies at some paths (a log file, a run directory, recursively): how many
 * entries, their total size and the sum of their mtimes. One lstat per entry, no reading and no
 * hashing; symbolic links are not followed. A new, removed, grown or rewritten file changes the
 * mark; a missing path counts as nothing.
 */
async function outputMark(paths: readonly string[]): Promise<string> {
  const mark = { entries: 0, bytes: 0n, mtimes: 0n };
  for (const path of paths) await addPath(path, mark);
  return `${mark.entries}:${mark.bytes}:${mark.mtimes}`;
}

async function addPath(path: string, mark: { entries: number; bytes: bigint; mtimes: bigint }): Promise<void> {
  let stats;
  try {
    stats = await lstat(path, { bigint: true });
  } catch {
    // Gone (or not there yet) while looking: it counts as nothing.
    return;
  }
  mark.entries += 1;
  mark.bytes += stats.size;
  mark.mtimes += stats.mtimeNs;
  if (!stats.isDirectory()) return;
  let names: string[];
  try {
    names = await readdir(path);
  } catch {
    return;
  }
  for (const name of names) await addPath(join(path, name), mark);
}

/**
 * Watches paths for progress: `check` takes a new mark and says how long it has been since the
 * mark last changed (the first check is the baseline). A check still running when the next is
 * due is not doubled up.
 */
export class ProgressWatch {
  private readonly paths: readonly string[];
  private last: string | null = null;
  private changedAt = Date.now();
  private checking = false;

  constructor(paths: readonly string[]) {
    this.paths = paths;
  }

  /** Milliseconds without a change as of this check, or null when a check is already running. */
  async quietFor(): Promise<number | null> {
    if (this.checking) return null;
    this.checking = true;
    try {
      const mark = await outputMark(this.paths);
      const now = Date.now();
      if (mark !== this.last) {
        this.last = mark;
        this.changedAt = now;
      }
      return now - this.changedAt;
    } finally {
      this.checking = false;
    }
  }
}
