// Whether a process of this host still runs, by its id: signal 0 checks without sending one.

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
