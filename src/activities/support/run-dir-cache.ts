// A host's run directories as a cache of the artifact store (loop.yaml `artifacts:
// keep_local_gib`, docs/artifacts.md, "A fleet without a shared disk"): a directory whose files
// are in the store (its lane uploaded them, or a step fetched them) carries a marker listing
// them; once the marked directories of a host's runs root outgrow the setting, those used
// longest ago lose their listed files (cache-policy.ts). A step holds the directories it reads
// while it runs (a hold file each, by process id), and held ones are never touched. A deleted
// file is fetched again, by its row's sha256, by the next step that needs it.
import { randomUUID } from 'node:crypto';
import { readdir, readFile, rename, rm, rmdir, utimes, stat, writeFile } from 'node:fs/promises';
import { isAbsolute, join, relative, sep } from 'node:path';
import { dirsToEvict, HOLD_PREFIX, IN_STORE_MARKER, type CachedRunDir } from '../../artifacts/cache-policy.js';
import type { FileRef } from '../../artifacts/file-ref.js';
import type { ArtifactSettings } from '../../artifacts/store-settings.js';
import { activityHooks } from './activity-context.js';
import { appendLogLine } from './reports.js';
import { fetchStepFiles } from './step-files.js';
import { processAlive } from '../../support/process-alive.js';

/** What a host keeps of marked run directories when loop.yaml says nothing. */
export const DEFAULT_KEEP_LOCAL_GIB = 50;

/** Whether a path is below a directory (not the directory, not outside it). */
function inside(dir: string, path: string): boolean {
  const rel = relative(dir, path);
  return rel !== '' && !rel.startsWith('..') && !isAbsolute(rel);
}

/** The run directory (`<runs root>/<name>`) a file is in, or null for a file outside one. */
export function runDirOf(runsRoot: string, path: string): string | null {
  if (!inside(runsRoot, path)) return null;
  const [first, ...rest] = relative(runsRoot, path).split(sep);
  return rest.length === 0 || first === undefined ? null : join(runsRoot, first);
}

/** Paths inside the directory (a directory moved aside keeps a marker that names its own files). */
interface Marker {
  readonly files: readonly { readonly name: string; readonly bytes: number }[];
}

async function readMarker(dir: string): Promise<Marker | null> {
  try {
    const marker = JSON.parse(await readFile(join(dir, IN_STORE_MARKER), 'utf8')) as Marker;
    return Array.isArray(marker.files) ? marker : null;
  } catch {
    return null;
  }
}

function markedBytes(marker: Marker): number {
  return marker.files.reduce((sum, file) => sum + file.bytes, 0);
}

/** Records that these of a directory's files are in the store (beside what its marker listed). */
export async function markInStore(dir: string, refs: readonly FileRef[]): Promise<void> {
  const ours = refs.filter((ref) => inside(dir, ref.path));
  if (ours.length === 0) return;
  const files = new Map((await readMarker(dir))?.files.map((file) => [file.name, file.bytes]));
  for (const ref of ours) files.set(relative(dir, ref.path), ref.bytes);
  const next = join(dir, `${IN_STORE_MARKER}.${process.pid}.${randomUUID()}`);
  await writeFile(next, `${JSON.stringify({ files: [...files].map(([name, bytes]) => ({ name, bytes })) })}\n`);
  await rename(next, join(dir, IN_STORE_MARKER));
}

/** A directory a step is about to write again (a training): nothing of it may be deleted. */
export async function unmarkInStore(dir: string): Promise<void> {
  await rm(join(dir, IN_STORE_MARKER), { force: true });
}

/** Whether a live process of this host holds the directory (holds of dead ones are removed). */
async function held(dir: string): Promise<boolean> {
  const names = await readdir(dir).catch(() => [] as string[]);
  let live = false;
  for (const name of names.filter((entry) => entry.startsWith(HOLD_PREFIX))) {
    if (processAlive(Number(name.slice(HOLD_PREFIX.length).split('-')[0]))) live = true;
    else await rm(join(dir, name), { force: true });
  }
  return live;
}

/** Holds each directory that exists (and marks it used now); the release removes the holds. */
async function hold(dirs: readonly string[]): Promise<() => Promise<void>> {
  const holds: string[] = [];
  const now = new Date();
  for (const dir of dirs) {
    const file = join(dir, `${HOLD_PREFIX}${process.pid}-${randomUUID()}`);
    try {
      await writeFile(file, '', { flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    holds.push(file);
    await utimes(join(dir, IN_STORE_MARKER), now, now).catch(() => undefined);
  }
  return async () => {
    await Promise.all(holds.map((file) => rm(file, { force: true })));
  };
}

/** Removes the empty folders of a directory, deepest first, and the directory when empty. */
async function pruneEmpty(dir: string): Promise<void> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  const folders = entries
    .filter((entry) => entry.isDirectory())
    .map((entry) => join(entry.parentPath, entry.name))
    .sort((a, b) => b.length - a.length);
  for (const folder of [...folders, dir]) await rmdir(folder).catch(() => undefined);
}

/**
 * Deletes the listed files of the marked run directories used longest ago until what is left
 * fits in `keepBytes` (held ones are kept); what went.
 */
export async function trimRunsRoot(runsRoot: string, keepBytes: number): Promise<{ dirs: number; bytes: number }> {
  const entries: CachedRunDir[] = [];
  for (const name of await readdir(runsRoot).catch(() => [] as string[])) {
    const dir = join(runsRoot, name);
    const marker = await readMarker(dir);
    if (marker === null) continue;
    const usedAt = (await stat(join(dir, IN_STORE_MARKER)).catch(() => null))?.mtimeMs ?? 0;
    entries.push({ dir, bytes: markedBytes(marker), usedAt, held: await held(dir) });
  }
  let gone = { dirs: 0, bytes: 0 };
  for (const dir of dirsToEvict(entries, keepBytes)) {
    // Held since it was read: kept. Unmarked first, so no later step counts on what goes.
    if (await held(dir)) continue;
    const marker = await readMarker(dir);
    if (marker === null) continue;
    await unmarkInStore(dir);
    for (const file of marker.files) {
      if (inside(dir, join(dir, file.name))) await rm(join(dir, file.name), { force: true });
    }
    await pruneEmpty(dir);
    gone = { dirs: gone.dirs + 1, bytes: gone.bytes + markedBytes(marker) };
  }
  return gone;
}

/** loop.yaml `artifacts: keep_local_gib` in bytes. */
export function keepLocalBytes(settings: ArtifactSettings): number {
  return (settings.keep_local_gib ?? DEFAULT_KEEP_LOCAL_GIB) * 1024 ** 3;
}

/** Trims this host's runs root after a step; a failure to is said in the step's log, never fails the step. */
export async function trimAfterStep(settings: ArtifactSettings, runsRoot: string, log: string): Promise<void> {
  try {
    const gone = await trimRunsRoot(runsRoot, keepLocalBytes(settings));
    if (gone.dirs > 0)
      await appendLogLine(
        log,
        `artifacts: ${gone.dirs} run directories used longest ago deleted from this host (${gone.bytes} bytes, in the store; keep_local_gib)`,
      );
  } catch (error) {
    activityHooks().warn(
      `artifacts: could not trim ${runsRoot}: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

/**
 * Runs a step that reads files other hosts (or earlier steps here) put in the store: the run
 * directories they are in are held while it runs, what this host lacks is fetched, and the
 * directories are marked as in the store; after the step, the runs root is trimmed.
 */
export async function withStepFiles<T>(
  settings: ArtifactSettings,
  runsRoot: string,
  refs: readonly FileRef[],
  log: string,
  work: () => Promise<T>,
): Promise<T> {
  const dirs = [...new Set(refs.map((ref) => runDirOf(runsRoot, ref.path)).filter((dir) => dir !== null))];
  const releases = [await hold(dirs)];
  try {
    await fetchStepFiles(settings, refs, log);
    // The directories the fetch made; a second hold of one held already does no harm.
    releases.push(await hold(dirs));
    for (const dir of dirs) await markInStore(dir, refs);
    return await work();
  } finally {
    for (const release of releases) await release();
    await trimAfterStep(settings, runsRoot, log);
  }
}
