// loop.yaml `data_root` on a fleet without a shared disk (docs/artifacts.md): every host keeps
// its own copy, synced by the operator, and the lanes check theirs against the orchestrator's
// before training. A fingerprint is the sorted list of the root's files with their sizes, hashed:
// cheap enough for every run (a directory walk, no file read), and it tells a copy missing files,
// with extra ones, or with a file of another length. A file changed in place at the same length is
// not seen (docs/limits.md).
import { createHash } from 'node:crypto';
import { readdir, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export interface DataFingerprint {
  readonly files: number;
  readonly bytes: number;
  readonly sha256: string;
}

/** A root's fingerprint is walked again after this long (a sync under a running loop is seen within it). */
const FRESH_MS = 60_000;
const cache = new Map<string, { readonly at: number; readonly fingerprint: Promise<DataFingerprint> }>();

/** The fingerprint of the files under `root` (walked at most once a minute a process). */
export function dataFingerprint(root: string): Promise<DataFingerprint> {
  const cached = cache.get(root);
  if (cached !== undefined && Date.now() - cached.at < FRESH_MS) return cached.fingerprint;
  const fingerprint = fingerprintOf(root);
  cache.set(root, { at: Date.now(), fingerprint });
  fingerprint.catch(() => cache.delete(root));
  return fingerprint;
}

/** The fingerprint of the files under `root` as they are now; a root that is not there has none (0 files). */
export async function fingerprintOf(root: string): Promise<DataFingerprint> {
  const entries = await readdir(root, { recursive: true, withFileTypes: true }).catch(
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return [];
      throw error;
    },
  );
  const files = await Promise.all(
    entries
      .filter((entry) => entry.isFile())
      .map(async (entry) => {
        const file = join(entry.parentPath, entry.name);
        return { path: relative(root, file).split(sep).join('/'), bytes: (await stat(file)).size };
      }),
  );
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const hash = createHash('sha256');
  for (const file of files) hash.update(`${file.path}\0${file.bytes}\n`);
  return { files: files.length, bytes: files.reduce((sum, file) => sum + file.bytes, 0), sha256: hash.digest('hex') };
}

/** Why this host's copy is not the orchestrator's, or null when the fingerprints agree. */
export function dataMismatch(root: string, expected: DataFingerprint, here: DataFingerprint): string | null {
  if (here.sha256 === expected.sha256) return null;
  return (
    `data_root ${root} on this host is not the orchestrator's: ${here.files} files, ${here.bytes} bytes here, ` +
    `${expected.files} files, ${expected.bytes} bytes there (fingerprints ${here.sha256.slice(0, 12)} and ` +
    `${expected.sha256.slice(0, 12)}); sync it from the orchestrator's host (docs/artifacts.md, "A fleet without a shared disk")`
  );
}
