// Where the tools the tests need beyond npm (SeaweedFS's weed, Jaeger, the Temporal server and its
// SQL tool) are kept: one folder per tool and version under the user's cache, outside any clone, so
// every clone and CI run on the machine builds (or downloads) each of them once:
// `${XDG_CACHE_HOME:-~/.cache}/champion-loop/tools/<tool>-<version>/`.
// A build holds `<tool>-<version>.lock` (a folder made atomically, the builder's pid inside): a
// second process wanting the same tool waits for it and then takes what it built, and a lock whose
// process is gone (killed mid build) is taken over.
import { mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';

/** `${XDG_CACHE_HOME:-~/.cache}/champion-loop/tools`. */
export function toolsRoot(): string {
  const cache = process.env.XDG_CACHE_HOME?.trim() || path.join(homedir(), '.cache');
  return path.join(cache, 'champion-loop', 'tools');
}

/** The folder one version of one tool lives in. */
export function toolDir(tool: string, version: string): string {
  return path.join(toolsRoot(), `${tool}-${version}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Run `work` holding the tool folder's lock. `ready` is asked first and again once the lock is
 * held: when it says yes (another process built the tool meanwhile) `work` is not run.
 * `waiting` is told once when another live process holds the lock.
 */
export async function withToolLock<T>(
  dir: string,
  ready: () => Promise<T | undefined>,
  work: () => Promise<T>,
  waiting: (holder: number) => void = () => undefined,
): Promise<T> {
  const done = await ready();
  if (done !== undefined) return done;
  const lock = `${dir}.lock`;
  await mkdir(path.dirname(lock), { recursive: true });
  let told = false;
  for (;;) {
    try {
      await mkdir(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    }
    const holder = Number((await readFile(path.join(lock, 'pid'), 'utf8').catch(() => '')).trim()) || 0;
    const made = (await stat(lock).catch(() => null))?.mtimeMs ?? Date.now();
    const orphan = holder > 0 ? !alive(holder) : Date.now() - made > 60_000;
    if (orphan) {
      // Its builder died (or died between making the lock and writing its pid): a half-made
      // folder is rebuilt by whoever takes the lock.
      await rm(lock, { recursive: true, force: true });
      continue;
    }
    if (holder > 0 && !told) {
      told = true;
      waiting(holder);
    }
    // A lock without a pid yet is a few milliseconds old: wait as for any other.
    await sleep(2_000);
  }
  try {
    await writeFile(path.join(lock, 'pid'), String(process.pid));
    return (await ready()) ?? (await work());
  } finally {
    await rm(lock, { recursive: true, force: true });
  }
}
