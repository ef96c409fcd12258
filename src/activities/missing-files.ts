import { fetchFiles, getPathRef } from '../artifacts/file-store.js';
import { ArtifactStoreError, usingStore } from '../artifacts/object-store.js';
import { activityHooks } from './support/activity-context.js';
import type { ArtifactSettings } from '../artifacts/store-settings.js';
import { exists } from './support/move-aside.js';

export interface MissingFilesInput {
  readonly files: readonly string[];
  /**
   * loop.yaml `artifacts:`: a file not on this host that another host put in the store under its
   * path (a teacher file a lane built) is fetched here, and is not missing.
   */
  readonly store?: { readonly settings: ArtifactSettings; readonly loopId: string };
}

/** Which of these files do not exist (yet): student candidates wait for their teacher file. */
export async function missingFiles(input: MissingFilesInput): Promise<string[]> {
  const missing: string[] = [];
  for (const file of input.files) if (!(await exists(file))) missing.push(file);
  if (missing.length === 0 || input.store === undefined) return missing;
  const { loopId } = input.store;
  return usingStore(input.store.settings, async (store) => {
    const left: string[] = [];
    for (const file of missing) {
      try {
        const ref = await getPathRef(store, loopId, file);
        if (ref === null) left.push(file);
        else await fetchFiles(store, [ref]);
      } catch (error) {
        // A store that does not answer now: the file stays missing (its students wait), asked again next round.
        if (!(error instanceof ArtifactStoreError)) throw error;
        activityHooks().warn(`${error.message}; ${file} counts as missing for now`);
        left.push(file);
      }
    }
    return left;
  });
}
