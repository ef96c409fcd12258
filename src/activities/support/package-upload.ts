import { setTimeout as sleep } from 'node:timers/promises';
import { ArtifactStoreError, ObjectStore } from '../../artifacts/object-store.js';
import { packageKey, putPackage, type StoredPackage } from '../../artifacts/package-store.js';
import type { ArtifactSettings } from '../../artifacts/store-settings.js';
import type { PackageChampion } from '../types.js';
import { activityHooks } from './activity-context.js';
import { appendLogLine } from './reports.js';

/** Waits between upload attempts: 1 s doubling to a minute, for as long as the package step may take. */
const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 60_000;

/**
 * Uploads a champion's package to the artifact store (docs/artifacts.md), on the host that made
 * it, before its outcome is recorded. A store that is down or refuses is tried again with backoff
 * inside this step (running the package command again would not help), each failure said in the
 * package log and the step's heartbeat (`temporal workflow describe` shows it), until the upload
 * goes through or the step is cancelled or runs out of `timeouts.package`.
 */
export async function uploadPackage(
  settings: ArtifactSettings,
  identity: { readonly loopId: string; readonly champion: PackageChampion },
  path: string,
  log: string,
): Promise<StoredPackage> {
  const hooks = activityHooks();
  const store = new ObjectStore(settings);
  const key = packageKey(store, { loopId: identity.loopId, ...identity.champion });
  const started = Date.now();
  let waiting: string | undefined;
  const beat = setInterval(
    () =>
      hooks.heartbeat?.({
        step: 'upload',
        pid: 0,
        pgid: 0,
        elapsedMs: Date.now() - started,
        ...(waiting === undefined ? {} : { waiting }),
      }),
    hooks.heartbeatIntervalMs,
  );
  beat.unref();
  try {
    for (let wait = FIRST_WAIT_MS; ; wait = Math.min(LONGEST_WAIT_MS, wait * 2)) {
      try {
        const stored = await putPackage(store, key, path);
        await appendLogLine(
          log,
          `artifacts: package uploaded to ${stored.uri} (${stored.files} files, ${stored.bytes} bytes)`,
        );
        return stored;
      } catch (error) {
        if (!(error instanceof ArtifactStoreError)) throw error;
        waiting = `${error.message}; trying again in ${Math.round(wait / 1000)} s`;
        hooks.warn(waiting);
        await appendLogLine(log, waiting).catch(() => undefined);
        await sleep(wait, undefined, hooks.signal === undefined ? {} : { signal: hooks.signal });
      }
    }
  } finally {
    clearInterval(beat);
    store.close();
  }
}
