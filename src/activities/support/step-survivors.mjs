// @ts-check
/**
 * Processes a step started that left its process group (a trainer's `setsid` helper, a daemonised
 * launcher): killing the group misses them, and on a GPU they keep their memory. Every step's
 * processes carry the variable STEP_MARK with a value of the step's own; what still carries it
 * once the step has ended is a survivor, found in /proc and killed. A process that clears its
 * environment escapes this; where the machine allows, a cgroup per step (step-cgroup.mjs) does not let it.
 * Shared by runStep (the step ended or was stopped) and the group reaper (its worker died).
 */
import { readdirSync, readFileSync } from 'node:fs';
import process from 'node:process';
import { procStatFields } from './proc-stat.mjs';

/** The variable every step's processes inherit, naming the step. */
export const STEP_MARK = 'CHAMPION_LOOP_STEP';

/**
 * The process group of a process, from /proc/<pid>/stat (its fifth field, after the command in
 * parentheses); null when it cannot be read.
 * @param {number} pid
 * @returns {number | null}
 */
export function processGroupOf(pid) {
  const pgrp = Number(procStatFields(pid)?.[2]);
  return Number.isSafeInteger(pgrp) ? pgrp : null;
}

/**
 * SIGKILL every process (of this user) whose environment holds STEP_MARK=`mark`; returns them.
 * Members of process group `group` are left out: the group's own SIGKILL has them, though a busy
 * box may not have ended them yet, and they did not leave the group. Without /proc (not Linux)
 * nothing is found.
 * @param {string} mark
 * @param {number} [group]
 * @returns {{ pid: number; command: string }[]}
 */
export function killMarked(mark, group) {
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
      if (group !== undefined && processGroupOf(pid) === group) continue;
      const command = commandOf(pid);
      process.kill(pid, 'SIGKILL');
      killed.push({ pid, command });
    } catch {
      // Gone meanwhile, or another user's process (its environ is not ours to read).
    }
  }
  return killed;
}

/**
 * The mark of the step a process belongs to (the value of its STEP_MARK), or null: not a step's,
 * gone, another user's, or no /proc. The memory guard uses it to attribute GPU memory to steps.
 * @param {number} pid
 * @returns {string | null}
 */
export function stepMarkOf(pid) {
  const prefix = `${STEP_MARK}=`;
  try {
    const entry = readFileSync(`/proc/${pid}/environ`, 'latin1')
      .split('\0')
      .find((variable) => variable.startsWith(prefix));
    return entry === undefined ? null : entry.slice(prefix.length);
  } catch {
    return null;
  }
}

/**
 * A process's command line, or `?` when it cannot be read.
 * @param {number} pid
 * @returns {string}
 */
export function commandOf(pid) {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' ').trim();
  } catch {
    return '?';
  }
}
