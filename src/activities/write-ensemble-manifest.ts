import { join } from 'node:path';
import { padGeneration } from '../rules/ids.js';
import type { FileRef } from '../artifacts/file-ref.js';
import { ArtifactStoreError } from '../artifacts/object-store.js';
import { activityHooks } from './support/activity-context.js';
import { writeManifestFile, type ManifestMember } from './support/manifest-file.js';
import { exists } from './support/move-aside.js';
import { uploadOnce } from './support/step-files.js';
import type { EnsembleManifest, EnsembleManifestInput, LeftOutMember } from './types.js';

/**
 * Writes an ensemble's manifest, `ensembles/gen-GGG/<name>` (docs/behaviour.md, teachers and
 * ensembles); a manifest an earlier attempt left is reused, never rewritten.
 */
export async function writeEnsembleManifest(input: EnsembleManifestInput): Promise<EnsembleManifest> {
  const path = join(input.paths.stateDir, 'ensembles', `gen-${padGeneration(input.generation)}`, input.name);
  const leftOut = await membersWithoutFiles(input.members, input.files ?? []);
  const kept = input.members.filter((member) => !leftOut.some((gone) => sameMember(gone, member)));
  const sha256 = await writeManifestFile(path, kept);
  const said = leftOut.length === 0 ? {} : { left_out: leftOut };
  if (leftOut.length > 0) activityHooks().warn(`ensemble ${path} leaves out: ${leftOut.map((m) => m.why).join('; ')}`);
  if (input.artifacts === undefined) return { path, sha256, ...said };
  // Members share their split (and may share configs): each file once.
  const unique = (files: readonly FileRef[]) =>
    files.filter((ref, index) => files.findIndex((other) => other.path === ref.path) === index);
  try {
    const [manifest] = await uploadOnce(input.artifacts, [path]);
    return {
      path,
      sha256,
      files: unique([...(manifest === undefined ? [] : [manifest]), ...(input.files ?? [])]),
      ...said,
    };
  } catch (error) {
    // The store down: the manifest stays on this host; the lane that scores the ensemble writes
    // the same bytes from the run row's members (checked by its sha256) and uploads them itself.
    if (!(error instanceof ArtifactStoreError)) throw error;
    activityHooks().warn(`${error.message}; the ensemble's manifest ${path} is written again where it is scored`);
    return { path, sha256, files: unique(input.files ?? []), ...said };
  }
}

function sameMember(a: ManifestMember, b: ManifestMember): boolean {
  return a.config === b.config && a.checkpoint === b.checkpoint;
}

/**
 * Members whose job config or checkpoint is neither on this host nor (with a store) among the
 * members' files: their evaluation would fail, as would the ensemble's. A job config goes with
 * the state dir when an operator empties it under a running generation (issue 48).
 */
async function membersWithoutFiles(
  members: readonly ManifestMember[],
  files: readonly FileRef[],
): Promise<LeftOutMember[]> {
  const here = async (file: string) => files.some((ref) => ref.path === file) || (await exists(file));
  const leftOut: LeftOutMember[] = [];
  for (const member of members) {
    const gone = [
      ...((await here(member.config)) ? [] : [`job config ${member.config}`]),
      ...((await here(member.checkpoint)) ? [] : [`checkpoint ${member.checkpoint}`]),
    ];
    if (gone.length > 0) {
      leftOut.push({
        ...member,
        why: `${gone.join(' and ')} ${gone.length > 1 ? 'are' : 'is'} gone (was the state dir emptied?)`,
      });
    }
  }
  return leftOut;
}
