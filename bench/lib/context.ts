import { readFile } from 'node:fs/promises';
import type { WorkflowBundleWithSourceMap } from '@temporalio/worker';
import type { BenchOptions } from './options.js';

/** What every section gets: the Temporal CLI, the workflow bundle the workers run, the sizes, a logger. */
export interface BenchContext {
  readonly cli: string;
  readonly bundle: WorkflowBundleWithSourceMap;
  readonly bundleMs: number;
  readonly options: BenchOptions;
  readonly log: (line: string) => void;
}

/** Peak and current resident memory of a process, in MiB, from /proc (null where there is no /proc). */
export async function processMemory(pid: number | 'self'): Promise<{ hwmMiB: number; rssMiB: number } | null> {
  try {
    const status = await readFile(`/proc/${pid}/status`, 'utf8');
    const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? Number.NaN);
    return { hwmMiB: kib('VmHWM') / 1024, rssMiB: kib('VmRSS') / 1024 };
  } catch {
    return null;
  }
}

/** Run `work` over `items` with at most `limit` at once, results in order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array<R>(items.length);
  let next = 0;
  const lanes = Array.from({ length: Math.min(limit, items.length) }, async () => {
    while (next < items.length) {
      const index = next;
      next += 1;
      results[index] = await work(items[index] as T);
    }
  });
  await Promise.all(lanes);
  return results;
}

/** CPU seconds of a process (user + system) and of its reaped children, from /proc/<pid>/stat. */
export async function processCpu(pid: number | 'self'): Promise<{ own: number; children: number } | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces) start at the state, field 3.
    const fields = stat
      .slice(stat.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
    const ticks = 100;
    const at = (field: number) => (fields[field - 3] ?? Number.NaN) / ticks;
    return { own: at(14) + at(15), children: at(16) + at(17) };
  } catch {
    return null;
  }
}
