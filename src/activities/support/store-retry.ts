import { setTimeout as sleep } from 'node:timers/promises';
import { ArtifactStoreError, ObjectStore } from '../../artifacts/object-store.js';
import type { ArtifactSettings } from '../../artifacts/store-settings.js';
import { activityHooks } from './activity-context.js';
import { appendLogLine } from './reports.js';

/** Waits between attempts: 1 s doubling to a minute, for as long as the step may take. */
const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 60_000;

/**
 * Runs `work` against the artifact store (docs/artifacts.md) inside a step, on the host that runs
 * the step. A store that is down or refuses is tried again with backoff here (running the step's
 * command again would not help), each failure said in the step's log and its heartbeat
 * (`temporal workflow describe` shows it), until `work` goes through or the step is cancelled or
 * runs out of its timeout. Errors other than the store's are the step's own and end it.
 */
export async function withStore<T>(
  settings: ArtifactSettings,
  log: string,
  step: string,
  work: (store: ObjectStore) => Promise<T>,
): Promise<T> {
  const hooks = activityHooks();
  const store = new ObjectStore(settings);
  const started = Date.now();
  let waiting: string | undefined;
  const beat = setInterval(
    () =>
      hooks.heartbeat?.({
        step,
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
        return await work(store);
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
