// Whether a process of this host still runs, by its id: signal 0 checks without sending one.
import { procStatFields } from '../activities/support/proc-stat.mjs';

/** True while the process runs (EPERM: it runs, as another user). */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * When a process started, in clock ticks since boot (`/proc/PID/stat`, field 22): with its id it
 * names one process, where an id alone is reused (Linux hands out ids up to pid_max, often 32768,
 * again and again on a box that runs many subprocesses). Null where there is no /proc or no such process.
 */
export function processStartTime(pid: number): string | null {
  return procStatFields(pid)?.[19] ?? null;
}

/**
 * True while the process `pid` that started at `startTime` runs: a process that took its id
 * since is another one. Without a start time (written where there was no /proc), as processAlive.
 */
export function sameProcessAlive(pid: number, startTime: string | undefined): boolean {
  if (!processAlive(pid)) return false;
  if (startTime === undefined || startTime === '') return true;
  const now = processStartTime(pid);
  return now === null || now === startTime;
}
