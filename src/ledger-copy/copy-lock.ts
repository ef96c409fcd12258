// One writer per state dir: the lock file names its holder (host, process id and the process's
// start time, so an id the system handed to another process since does not keep the lock) and is
// touched while held, so a holder that died (on this host or another) is taken over once its lock
// goes stale.
import { readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { processStartTime, sameProcessAlive } from '../support/process-alive.js';

const LOCK_FILE = 'ledger.jsonl.lock';
/** A lock untouched for this long belongs to a writer that is gone. */
const STALE_LOCK_MS = 60_000;

/** Take (or keep) the lock of a state dir's copy; false while another live writer holds it. */
export async function holdCopyLock(stateDir: string): Promise<boolean> {
  const file = path.join(stateDir, LOCK_FILE);
  const me = holderName();
  try {
    await writeFile(file, me, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
  const holder = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (holder === me) {
    const now = new Date();
    await utimes(file, now, now);
    return true;
  }
  const [host, pid, started] = holder.split(' ');
  const age = Date.now() - (await stat(file).catch(() => ({ mtimeMs: 0 }))).mtimeMs;
  const gone = (host === hostname() && !sameProcessAlive(Number(pid), started)) || age > STALE_LOCK_MS;
  if (!gone) return false;
  await rm(file, { force: true });
  try {
    await writeFile(file, me, { flag: 'wx' });
    return true;
  } catch {
    return false;
  }
}

/** Let go of a state dir's lock if this process holds it. */
export async function releaseCopyLock(stateDir: string): Promise<void> {
  const file = path.join(stateDir, LOCK_FILE);
  const holder = (await readFile(file, 'utf8').catch(() => '')).trim();
  if (holder === holderName()) await rm(file, { force: true });
}

/** This process as a lock names it: host, id and start time (none where there is no /proc). */
function holderName(): string {
  return [hostname(), process.pid, processStartTime(process.pid) ?? ''].join(' ').trim();
}
