// @ts-check
import { readFileSync } from 'node:fs';

/**
 * The fields of /proc/<pid>/stat after the command name (which may hold spaces and parentheses
 * itself): index 0 is the state (field 3 of proc(5)), 2 the process group, 19 the start time.
 * Null where there is no /proc or no such process. Plain JavaScript: the group reaper
 * (group-reaper.mjs) runs without a TypeScript loader.
 * @param {number} pid
 * @returns {string[] | null}
 */
export function procStatFields(pid) {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}
