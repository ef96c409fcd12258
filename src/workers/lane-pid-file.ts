// Where a lane's worker leaves its pid, so `worker gpu --drain` on the same host finds it.
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { processAlive } from '../support/process-alive.js';

/** The pid file of the lane worker serving `queue` on this host (in $XDG_RUNTIME_DIR, else the temp dir). */
export function lanePidFile(queue: string, env: NodeJS.ProcessEnv = process.env): string {
  return join(env.XDG_RUNTIME_DIR ?? tmpdir(), 'champion-loop', `${queue}.pid`);
}

export async function writeLanePid(file: string, pid = process.pid): Promise<void> {
  await mkdir(join(file, '..'), { recursive: true });
  await writeFile(file, `${pid}\n`);
}

/** The pid in the file, if that process still runs; null when there is none (no file, or a stale one). */
export async function runningLanePid(file: string): Promise<number | null> {
  const pid = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  return processAlive(pid) ? pid : null;
}

/** Removes the file if it still names `pid` (a newer worker's file is left alone). */
export async function removeLanePid(file: string, pid = process.pid): Promise<void> {
  const text = await readFile(file, 'utf8').catch(() => '');
  if (Number(text.trim()) === pid) await rm(file, { force: true });
}

/**
 * How a lane's worker ended, left beside its pid file for `worker gpu --drain` (issue 48): a drain
 * that saw the worker go must say whether it drained or was stopped (its running jobs cancelled).
 */
export type LaneEnd = { readonly pid: number } & (
  | { readonly how: 'drained' }
  | { readonly how: 'signal'; readonly signal: string; readonly running: number }
  | { readonly how: 'failed'; readonly error: string }
);

function laneEndFile(pidFile: string): string {
  return pidFile.replace(/\.pid$/, '.end.json');
}

/** Written by the worker just before it removes its pid file. */
export async function writeLaneEnd(pidFile: string, end: LaneEnd): Promise<void> {
  await writeFile(laneEndFile(pidFile), `${JSON.stringify(end)}\n`).catch(() => undefined);
}

/** The end the worker `pid` recorded, or null (none, another worker's, or unreadable: a kill -9, a crash). */
export async function readLaneEnd(pidFile: string, pid: number): Promise<LaneEnd | null> {
  try {
    const end = JSON.parse(await readFile(laneEndFile(pidFile), 'utf8')) as LaneEnd;
    return end.pid === pid ? end : null;
  } catch {
    return null;
  }
}
