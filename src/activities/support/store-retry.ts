import { setTimeout as sleep } from 'node:timers/promises';
import { ApplicationFailure } from '@temporalio/common';
import { ArtifactStoreError, DamagedObjectError, ObjectStore } from '../../artifacts/object-store.js';
import type { ArtifactSettings } from '../../artifacts/store-settings.js';
import { activityHooks } from './activity-context.js';
import { appendLogLine } from './reports.js';
import { definedFields } from '../../support/defined-fields.js';

/** Waits between attempts: 1 s doubling to a minute, for as long as the step may take. */
const FIRST_WAIT_MS = 1_000;
const LONGEST_WAIT_MS = 60_000;

/** What a step that met a damaged object says to do. */
const DAMAGED_WHAT_TO_DO =
  'A damaged object does not heal, so this step fails now rather than wait for it: put the right bytes back under ' +
  'that key (upload the file again from a host that still has it), or train the run again (a new run uploads its files anew)';

/**
 * Runs `work` against the artifact store (docs/artifacts.md) inside a step, on the host that runs
 * the step. A store that is down or refuses is tried again with backoff here (running the step's
 * command again would not help), each failure said in the step's log and its heartbeat
 * (`temporal workflow describe` shows it), until `work` goes through or the step is cancelled or
 * runs out of its timeout. Errors other than the store's are the step's own and end it. An object
 * whose bytes are not what its reader expects is fetched once more (a transfer that went wrong),
 * then ends the step for good (a non-retryable failure naming the object and what to do): a
 * damaged object does not heal, and waiting for it held the lane until the step's timeout (issue 48).
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
  let damaged = 0;
  const beat = setInterval(
    () =>
      hooks.heartbeat?.({
        step,
        pid: 0,
        pgid: 0,
        elapsedMs: Date.now() - started,
        ...definedFields({ waiting }),
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
        if (error instanceof DamagedObjectError && (damaged += 1) >= 2) {
          const failed = `${error.message}. ${DAMAGED_WHAT_TO_DO}`;
          await appendLogLine(log, failed).catch(() => undefined);
          throw ApplicationFailure.create({ message: failed, type: 'DamagedObjectError', nonRetryable: true });
        }
        waiting = `${error.message}; trying again in ${Math.round(wait / 1000)} s`;
        hooks.warn(waiting);
        await appendLogLine(log, waiting).catch(() => undefined);
        await sleep(wait, undefined, definedFields({ signal: hooks.signal }));
      }
    }
  } finally {
    clearInterval(beat);
    store.close();
  }
}
