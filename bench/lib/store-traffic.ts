// What a loop's steps moved through the artifact store, read from their logs (the lines
// activities/support/step-files.ts writes and reads back: logTraffic).
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { logTraffic } from '../../src/activities/support/step-files.js';

export interface StoreTraffic {
  readonly uploaded: number;
  readonly fetched: number;
}

/** The bytes uploaded and fetched in every step log under a state dir's `logs/`. */
export async function storeTraffic(stateDir: string): Promise<StoreTraffic> {
  const dir = path.join(stateDir, 'logs');
  let uploaded = 0;
  let fetched = 0;
  for (const name of await readdir(dir).catch(() => [] as string[])) {
    const traffic = logTraffic(await readFile(path.join(dir, name), 'utf8').catch(() => ''));
    uploaded += traffic.uploaded;
    fetched += traffic.fetched;
  }
  return { uploaded, fetched };
}
