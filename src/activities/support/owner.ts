import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { exists } from './move-aside.js';
import { ownerMarker, runDir } from './paths.js';
import type { LoopPaths } from '../types.js';

// A run directory is the loop's own when `<stateDir>/owners/<runId>` names the training run's
// workflow id: trainRun writes it before the trainer creates the directory. Anything else
// under the runs root (no marker, another owner) is someone else's and is never touched.

/** The owner a run directory was marked with, or null when it has no marker. */
export async function readOwner(stateDir: string, runId: string): Promise<string | null> {
  try {
    return (await readFile(ownerMarker(stateDir, runId), 'utf8')).trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      return null;
    }
    throw error;
  }
}

/** Marks a run directory (existing or still to come) as this owner's. */
export async function writeOwner(stateDir: string, runId: string, owner: string): Promise<void> {
  const path = ownerMarker(stateDir, runId);
  await mkdir(dirname(path), { recursive: true });
  const tmp = `${path}.tmp-${process.pid}`;
  await writeFile(tmp, `${owner}\n`);
  await rename(tmp, path);
}

/** Whether a run's directory exists and its marker does not name this owner. */
export async function isStale(
  paths: Pick<LoopPaths, 'runsRoot' | 'stateDir'>,
  runId: string,
  owner: string,
): Promise<boolean> {
  if (!(await exists(runDir(paths, runId)))) {
    return false;
  }
  return (await readOwner(paths.stateDir, runId)) !== owner;
}
