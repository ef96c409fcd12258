import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { padGeneration } from '../rules/ids.js';
import { exists } from './support/move-aside.js';
import type { FileRef } from '../artifacts/file-ref.js';
import { ArtifactStoreError } from '../artifacts/object-store.js';
import { activityHooks } from './support/activity-context.js';
import { uploadOnce } from './support/step-files.js';
import type { EnsembleManifest, EnsembleManifestInput } from './types.js';

/**
 * Writes an ensemble's manifest, `ensembles/gen-GGG/<name>` (docs/behaviour.md, teachers and
 * ensembles); a manifest an earlier attempt left is reused, never rewritten.
 */
export async function writeEnsembleManifest(input: EnsembleManifestInput): Promise<EnsembleManifest> {
  const path = join(input.paths.stateDir, 'ensembles', `gen-${padGeneration(input.generation)}`, input.name);
  if (!(await exists(path))) {
    await mkdir(dirname(path), { recursive: true });
    const members = input.members.map((member) => ({ config: member.config, checkpoint: member.checkpoint }));
    await writeFile(path, `${JSON.stringify({ members }, null, 2)}\n`, { flag: 'wx' });
  }
  const sha256 = createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
  if (input.artifacts === undefined) return { path, sha256 };
  let manifest: FileRef | undefined;
  try {
    [manifest] = await uploadOnce(input.artifacts, [path]);
  } catch (error) {
    // The store down: the manifest stays on this host, and a lane elsewhere scores the ensemble as failed.
    if (!(error instanceof ArtifactStoreError)) throw error;
    activityHooks().warn(`${error.message}; the ensemble's manifest ${path} is not in the store`);
    return { path, sha256 };
  }
  // Members share their split (and may share configs): each file once.
  const files = [...(manifest === undefined ? [] : [manifest]), ...(input.files ?? [])];
  return {
    path,
    sha256,
    files: files.filter((ref, index) => files.findIndex((other) => other.path === ref.path) === index),
  };
}
