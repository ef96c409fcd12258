// Which run directories a host deletes to keep its disk bounded (loop.yaml `artifacts:
// keep_local_gib`, docs/artifacts.md): of those whose files are all in the store, the ones used
// longest ago, until what is left fits. Pure: the host's files are read and deleted by
// activities/support/run-dir-cache.ts.

/** A run directory's marker: its files that are in the store, with their sizes. */
export const IN_STORE_MARKER = '.in-store.json';
/** A step's hold on a run directory: `.in-use-<pid>-<uuid>`. */
export const HOLD_PREFIX = '.in-use-';

/** Whether a file in a run directory is the cache's own (never uploaded, never listed). */
export function isCacheFile(name: string): boolean {
  return name.startsWith(IN_STORE_MARKER) || name.startsWith(HOLD_PREFIX);
}

/** A run directory on this host whose files are in the store. */
export interface CachedRunDir {
  readonly dir: string;
  /** Bytes of its files in the store that are on this disk. */
  readonly bytes: number;
  /** When a step last used it (ms). */
  readonly usedAt: number;
  /** A step on this host uses it now: never deleted, and what it holds counts first. */
  readonly held: boolean;
}

/**
 * The directories to delete so that the rest fit in `keepBytes`: held ones are kept, then the
 * most recently used while they fit; the first that does not fit and every older one go (so a
 * small old directory never outlives a newer one).
 */
export function dirsToEvict(entries: readonly CachedRunDir[], keepBytes: number): string[] {
  let kept = entries.filter((entry) => entry.held).reduce((sum, entry) => sum + entry.bytes, 0);
  const free = entries.filter((entry) => !entry.held).sort((a, b) => b.usedAt - a.usedAt || a.dir.localeCompare(b.dir));
  const evicted: string[] = [];
  for (const entry of free) {
    if (evicted.length === 0 && kept + entry.bytes <= keepBytes) kept += entry.bytes;
    else evicted.push(entry.dir);
  }
  return evicted;
}
