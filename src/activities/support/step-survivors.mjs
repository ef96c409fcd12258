// @ts-check
/**
 * Processes a step started that left its process group (a trainer's `setsid` helper, a daemonised
 * launcher): killing the group misses them, and on a GPU they keep their memory. Every step's
 * processes carry the variable STEP_MARK with a value of the step's own; what still carries it
 * once the step has ended is a survivor, found in /proc and killed. A process that clears its
 * environment escapes this (a cgroup per job would not let it; not used here).
 * Shared by runStep (the step ended or was stopped) and the group reaper (its worker died).
 */
import { readdirSync, readFileSync } from 'node:fs';
import process from 'node:process';

/** The variable every step's processes inherit, naming the step. */
export const STEP_MARK = 'CHAMPION_LOOP_STEP';

/**
 * SIGKILL every process (of this user) whose environment holds STEP_MARK=`mark`; returns them.
 * Without /proc (not Linux) nothing is found.
 * @param {string} mark
 * @returns {{ pid: number; command: string }[]}
 */
export function killMarked(mark) {
  const wanted = `${STEP_MARK}=${mark}`;
  /** @type {{ pid: number; command: string }[]} */
  const killed = [];
  let entries;
  try {
    entries = readdirSync('/proc');
  } catch {
    return killed;
  }
  for (const entry of entries) {
    const pid = Number(entry);
    if (!Number.isSafeInteger(pid) || pid <= 1 || pid === process.pid) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0').includes(wanted)) continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
      process.kill(pid, 'SIGKILL');
      killed.push({ pid, command });
    } catch {
      // Gone meanwhile, or another user's process (its environ is not ours to read).
    }
  }
  return killed;
}
