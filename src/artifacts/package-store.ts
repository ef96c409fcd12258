// A packaged champion in the artifact store (docs/artifacts.md): its files under one key prefix,
// laid out as the package command made them, so `mlflow models` and `aws s3 cp --recursive`
// fetch it as it was; then a manifest of every file with its sha256, written last. A package
// whose manifest is missing is not whole (an upload cut short) and no reader takes it.
import { readdir, stat } from 'node:fs/promises';
import { basename, join, relative, sep } from 'node:path';
import { ArtifactStoreError, type ObjectStore } from './object-store.js';
import { storeLocation } from './store-settings.js';

/** The manifest's name inside a stored package. */
export const PACKAGE_MANIFEST = 'champion-loop-package.json';

interface ManifestFile {
  /** Relative to the package, `/`-separated. */
  readonly path: string;
  readonly sha256: string;
  readonly bytes: number;
}

interface PackageManifest {
  readonly format: 1;
  readonly files: readonly ManifestFile[];
}

/** A package in the store: its URI (the prefix, no trailing `/`), its manifest's sha256, its size. */
export interface StoredPackage {
  readonly uri: string;
  readonly manifest_sha256: string;
  readonly files: number;
  readonly bytes: number;
}

/** What names one champion's package in the store. */
export interface PackageIdentity {
  readonly loopId: string;
  readonly generation: number;
  readonly run_id: string;
  readonly checkpoint_name: string;
}

/** `<prefix>packages/<loop>/g001/<run>/<checkpoint>/`: one place per champion, the same on a retry. */
export function packageKey(store: ObjectStore, champion: PackageIdentity): string {
  const generation = `g${String(champion.generation).padStart(3, '0')}`;
  return store.key(`packages/${champion.loopId}/${generation}/${champion.run_id}/${champion.checkpoint_name}/`);
}

/** Every file under `path` (or `path` itself), relative to the package, sorted. */
async function packageFiles(path: string): Promise<{ file: string; path: string }[]> {
  if (!(await stat(path)).isDirectory()) return [{ file: path, path: basename(path) }];
  const entries = await readdir(path, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => {
      const file = join(entry.parentPath, entry.name);
      return { file, path: relative(path, file).split(sep).join('/') };
    })
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Uploads a package (a folder, or one file) under `key`, each file checked by sha256, the manifest last. */
export async function putPackage(store: ObjectStore, key: string, path: string): Promise<StoredPackage> {
  const files: ManifestFile[] = [];
  for (const each of await packageFiles(path)) {
    const stored = await store.putFile(`${key}${each.path}`, each.file);
    files.push({ path: each.path, sha256: stored.sha256, bytes: stored.bytes });
  }
  const manifest: PackageManifest = { format: 1, files };
  const written = await store.putText(`${key}${PACKAGE_MANIFEST}`, `${JSON.stringify(manifest, null, 1)}\n`);
  return {
    uri: store.uri(key.replace(/\/$/, '')),
    manifest_sha256: written.sha256,
    files: files.length,
    bytes: files.reduce((sum, file) => sum + file.bytes, 0),
  };
}

function parseManifest(text: string, uri: string): PackageManifest {
  const bad = (): never => {
    throw new ArtifactStoreError(`artifact store: ${uri} is not a package manifest this loop wrote`);
  };
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    return bad();
  }
  const manifest = data as Partial<PackageManifest> | null;
  if (manifest?.format !== 1 || !Array.isArray(manifest.files)) return bad();
  for (const file of manifest.files as unknown[]) {
    const each = file as Partial<ManifestFile> | null;
    if (
      typeof each?.path !== 'string' ||
      each.path.split('/').some((part) => part === '' || part === '.' || part === '..') ||
      typeof each.sha256 !== 'string' ||
      typeof each.bytes !== 'number'
    )
      return bad();
  }
  return manifest as PackageManifest;
}

/**
 * Fetches a stored package into `dest` (made if missing), every file checked against the
 * manifest's sha256. A package without a manifest was never finished: an error says so.
 */
export async function fetchPackage(
  store: ObjectStore,
  uri: string,
  dest: string,
): Promise<Pick<StoredPackage, 'files' | 'bytes'>> {
  const location = storeLocation(uri);
  if (location === null || location.bucket !== store.bucket) {
    throw new ArtifactStoreError(`${uri} is not a package in the loop's store (s3://${store.bucket}/...)`);
  }
  const key = location.prefix;
  const manifestUri = store.uri(`${key}${PACKAGE_MANIFEST}`);
  const text = await store.getText(`${key}${PACKAGE_MANIFEST}`);
  if (text === null) {
    throw new ArtifactStoreError(
      `artifact store: no whole package at ${uri}: its manifest ${manifestUri} is missing (nothing was stored there, or its upload was cut short and is retried by the package worker)`,
    );
  }
  const manifest = parseManifest(text, manifestUri);
  for (const file of manifest.files) {
    await store.getFile(`${key}${file.path}`, join(dest, ...file.path.split('/')), file.sha256);
  }
  return {
    files: manifest.files.length,
    bytes: manifest.files.reduce((sum, file) => sum + file.bytes, 0),
  };
}
