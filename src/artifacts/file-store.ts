// A loop's working files in the artifact store, by content (docs/artifacts.md, "A fleet without a
// shared disk"): a file one host wrote (a job config, a split, a checkpoint, an evaluation
// report) goes up as the object `blobs/sha256/<ab>/<sha256>`, and a row names it by its path and
// sha256 (a `FileRef`). Another host that needs it fetches it to the same path on its own disk,
// unless a file with that sha256 is there already (its local copy is the cache). Objects are
// immutable: the same bytes are the same key, so an upload again sends nothing.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';
import type { FileRef } from './file-ref.js';
import type { ObjectStore } from './object-store.js';

export type { FileRef };

/** What moved between this host and the store for one step: the bench's figures. */
export interface FileTraffic {
  readonly uploaded: number;
  readonly fetched: number;
}

/** The key of a file's bytes: `<prefix>blobs/sha256/ab/ab12...`. */
export function blobKey(store: ObjectStore, sha256: string): string {
  return store.key(`blobs/sha256/${sha256.slice(0, 2)}/${sha256}`);
}

/** The sha256 (hex) of a file, or null when there is no such file. */
async function localSha256(path: string): Promise<string | null> {
  const hash = createHash('sha256');
  try {
    await pipeline(createReadStream(path), hash);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
  return hash.digest('hex');
}

/** Uploads each file by its content (nothing for one the store has); the refs a row records, in order. */
export async function publishFiles(
  store: ObjectStore,
  paths: readonly string[],
): Promise<{ refs: FileRef[]; traffic: FileTraffic }> {
  const refs: FileRef[] = [];
  let uploaded = 0;
  for (const path of new Set(paths)) {
    const sent = await store.putFileByContent(path, (sha256) => blobKey(store, sha256));
    refs.push({ path, sha256: sent.sha256, bytes: sent.bytes });
    uploaded += sent.sent ? sent.bytes : 0;
  }
  return { refs, traffic: { uploaded, fetched: 0 } };
}

/**
 * Puts each file a step reads where its ref says, checked by sha256: a file there with the right
 * content is kept (nothing fetched), any other is replaced by the store's bytes.
 */
export async function fetchFiles(store: ObjectStore, refs: readonly FileRef[]): Promise<FileTraffic> {
  let fetched = 0;
  const seen = new Set<string>();
  for (const ref of refs) {
    if (seen.has(ref.path)) continue;
    seen.add(ref.path);
    if ((await localSha256(ref.path)) === ref.sha256) continue;
    await store.getFile(blobKey(store, ref.sha256), ref.path, ref.sha256);
    fetched += ref.bytes;
  }
  return { uploaded: 0, fetched };
}

/**
 * Where the store says which content a loop's file at a path has now: for a file whose readers
 * know it by its path alone (a generation's teacher file, which students name in their
 * overrides and the orchestrator waits for). One small object a path, rewritten by each build.
 */
function pathRefKey(store: ObjectStore, loopId: string, path: string): string {
  return store.key(`paths/${loopId}/${createHash('sha256').update(path).digest('hex')}.json`);
}

/** Records that `ref.path` has `ref`'s content (its bytes are in the store already). */
export async function putPathRef(store: ObjectStore, loopId: string, ref: FileRef): Promise<void> {
  await store.putText(pathRefKey(store, loopId, ref.path), `${JSON.stringify(ref)}\n`);
}

/** The content the store has for a loop's file at `path`, or null when no host put one there. */
export async function getPathRef(store: ObjectStore, loopId: string, path: string): Promise<FileRef | null> {
  const text = await store.getText(pathRefKey(store, loopId, path));
  if (text === null) return null;
  const ref = JSON.parse(text) as FileRef;
  return ref.path === path ? ref : null;
}
