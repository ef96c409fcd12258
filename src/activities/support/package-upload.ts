import { packageKey, putPackage, type StoredPackage } from '../../artifacts/package-store.js';
import type { ArtifactSettings } from '../../artifacts/store-settings.js';
import type { PackageChampion } from '../types.js';
import { appendLogLine } from './reports.js';
import { withStore } from './store-retry.js';

/**
 * Uploads a champion's package to the artifact store (docs/artifacts.md), on the host that made
 * it, before its outcome is recorded; a store that is down is waited for (store-retry.ts).
 */
export async function uploadPackage(
  settings: ArtifactSettings,
  identity: { readonly loopId: string; readonly champion: PackageChampion },
  path: string,
  log: string,
): Promise<StoredPackage> {
  return withStore(settings, log, 'upload', async (store) => {
    const key = packageKey(store, { loopId: identity.loopId, ...identity.champion });
    const stored = await putPackage(store, key, path);
    await appendLogLine(
      log,
      `artifacts: package uploaded to ${stored.uri} (${stored.files} files, ${stored.bytes} bytes)`,
    );
    return stored;
  });
}
