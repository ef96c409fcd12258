// How many more tasks (processes and threads) the lane's cgroup lets it start: the seed's PIDS-limit guard.
import { readFile } from 'node:fs/promises';
import path from 'node:path';

/** Tasks the cgroup's `pids.max` must still allow before a lane takes a job (`--min-free-pids`). */
export const DEFAULT_MIN_FREE_PIDS = 512;

/** What the guard sees: the tightest pids limit over this process's cgroup and its ancestors, or none. */
export type PidsReading =
  | { readonly kind: 'limited'; readonly current: number; readonly max: number; readonly where: string }
  | { readonly kind: 'unlimited' }
  | { readonly kind: 'error'; readonly reason: string };

export interface PidsSources {
  /** Where cgroups are mounted (default /sys/fs/cgroup). */
  readonly root?: string;
  /** This process's cgroup membership (default /proc/self/cgroup). */
  readonly self?: string;
}

async function text(file: string): Promise<string | null> {
  try {
    return (await readFile(file, 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw error;
  }
}

/** The pids cgroup folders to look at, innermost first: this process's own cgroup (v2, then v1), up to the mount. */
async function folders(root: string, self: string): Promise<string[]> {
  const own: string[] = [];
  for (const line of (await text(self).catch(() => null))?.split('\n') ?? []) {
    const [, controllers, where] = /^\d+:([^:]*):(\/.*)$/.exec(line.trim()) ?? [];
    if (where === undefined) continue;
    if (controllers === '') own.push(path.resolve(root, `.${where}`));
    else if (controllers?.split(',').includes('pids')) own.push(path.resolve(root, 'pids', `.${where}`));
  }
  const v1 = path.join(root, 'pids');
  const all: string[] = [];
  for (const start of [...own, root, v1]) {
    const top = start === v1 || start.startsWith(`${v1}${path.sep}`) ? v1 : root;
    for (let dir = start; ; dir = path.dirname(dir)) {
      if (!all.includes(dir)) all.push(dir);
      if (dir === top || !dir.startsWith(top)) break;
    }
  }
  return all;
}

/**
 * Read `pids.current` and `pids.max` (cgroup v2 `/sys/fs/cgroup/...`, v1 `/sys/fs/cgroup/pids/...`)
 * of this process's cgroup and every ancestor, and keep the one with the least headroom. No such
 * files, or only `max`: no limit. A file that is there but does not read as a number is an error.
 */
export async function readPidsLimit(sources: PidsSources = {}): Promise<PidsReading> {
  const root = path.resolve(sources.root ?? '/sys/fs/cgroup');
  let tightest: PidsReading = { kind: 'unlimited' };
  try {
    for (const dir of await folders(root, sources.self ?? '/proc/self/cgroup')) {
      const [current, max] = await Promise.all([
        text(path.join(dir, 'pids.current')),
        text(path.join(dir, 'pids.max')),
      ]);
      if (current === null || max === null || max === 'max') continue;
      const [used, limit] = [Number(current), Number(max)];
      if (!/^\d+$/.test(current) || !/^\d+$/.test(max)) {
        return {
          kind: 'error',
          reason: `${dir}: pids.current ${JSON.stringify(current)}, pids.max ${JSON.stringify(max)} are not numbers`,
        };
      }
      if (tightest.kind !== 'limited' || limit - used < tightest.max - tightest.current) {
        tightest = { kind: 'limited', current: used, max: limit, where: dir };
      }
    }
  } catch (error) {
    return { kind: 'error', reason: `reading the pids cgroup under ${root}: ${(error as Error).message}` };
  }
  return tightest;
}

/** Why the lane may not take a job now for lack of task headroom, or null when it may. */
export function pidsRefusal(reading: PidsReading, minFreePids: number): string | null {
  if (reading.kind === 'unlimited') return null;
  if (reading.kind === 'error') return reading.reason;
  const left = reading.max - reading.current;
  if (left >= minFreePids) return null;
  return `cgroup ${reading.where} has ${reading.current} of pids.max ${reading.max} tasks in use (${left} left), a job needs ${minFreePids} left (--min-free-pids)`;
}
