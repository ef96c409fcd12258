// What `status` says of the repairs the ledger keeper made to a loop's copy (issue 24): never silent.
import { copyRepairs, repairsPath } from '../ledger-copy/copy-files.js';

export interface CopyRepairsSeen {
  readonly count: number;
  readonly last_time: string | null;
  readonly last_found: string | null;
  readonly file: string;
}

/** The repairs recorded in the state dir (readable where this CLI shares the orchestrator's file system); null when none. */
export async function copyRepairsSeen(stateDir: string): Promise<CopyRepairsSeen | null> {
  const { count, last } = await copyRepairs(stateDir);
  if (count === 0) return null;
  return { count, last_time: last?.time ?? null, last_found: last?.found ?? null, file: repairsPath(stateDir) };
}

export function copyRepairsLine(seen: CopyRepairsSeen): string {
  const times = seen.count === 1 ? 'once' : `${seen.count} times`;
  const last = seen.last_time === null ? '' : `, last at ${seen.last_time}: ${seen.last_found ?? '?'}`;
  return `ledger copy: repaired from history ${times}${last} (what each repair found and left out: ${seen.file})`;
}
