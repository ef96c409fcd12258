import { readCursors } from './cursor.js';

// What `status` can say of a loop's notifications: notify.json's errors (the worker writes them,
// URLs redacted), for an operator who reads the status before the worker's log.

/** One line per webhook whose newest delivery failed ("notifications: webhook X waits: why"); none when all is well or nothing was written. */
export async function notifyProblems(stateDir: string): Promise<string[]> {
  let cursors;
  try {
    cursors = await readCursors(stateDir);
  } catch {
    // A half-written or foreign file: the worker rewrites it with its next delivery.
    return [];
  }
  return Object.entries(cursors)
    .filter(([, cursor]) => cursor.error !== null)
    .map(
      ([name, cursor]) =>
        `notifications: webhook ${name} waits at ledger row ${cursor.delivered_rows} since ${cursor.updated}: ${cursor.error}`,
    );
}
