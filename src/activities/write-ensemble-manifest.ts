import { join } from 'node:path';
import { padGeneration } from '../rules/ids.js';
import type { FileRef } from '../artifacts/file-ref.js';
import { ArtifactStoreError } from '../artifacts/object-store.js';
import { activityHooks } from './support/activity-context.js';
import { writeManifestFile } from './support/manifest-file.js';
import { uploadOnce } from './support/step-files.js';
import type { EnsembleManifest, EnsembleManifestInput } from './types.js';

/**
 * Writes an ensemble's manifest, `ensembles/gen-GGG/<name>` (docs/behaviour.md, teachers and
 * ensembles); a manifest an earlier attempt left is reused, never rewritten.
 */
export async function writeEnsembleManifest(input: EnsembleManifestInput): Promise<EnsembleManifest> {
  const path = join(input.paths.stateDir, 'ensembles', `gen-${padGeneration(input.generation)}`, input.name);
  const sha256 = await writeManifestFile(path, input.members);
  if (input.artifacts === undefined) return { path, sha256 };
  // Members share their split (and may share configs): each file once.
  const unique = (files: readonly FileRef[]) =>
    files.filter((ref, index) => files.findIndex((other) => other.path === ref.path) === index);
  try {
    const [manifest] = await uploadOnce(input.artifacts, [path]);
    return { path, sha256, files: unique([...(manifest === undefined ? [] : [manifest]), ...(input.files ?? [])]) };
  } catch (error) {
    // The store down: the manifest stays on this host; the lane that scores the ensemble writes
    // the same bytes from the run row's members (checked by its sha256) and uploads them itself.
    if (!(error instanceof ArtifactStoreError)) throw error;
    activityHooks().warn(`${error.message}; the ensemble's manifest ${path} is written again where it is scored`);
    return { path, sha256, files: unique(input.files ?? []) };
  }
}
