// @ts-check
/**
 * A cgroup v2 per step, where the machine lets the worker make them: every process the step
 * starts after it is moved in stays in it, whatever it does (`setsid`, a double fork, an empty
 * environment), and `cgroup.kill` ends them all at once. Where cgroup v2 is not mounted or the
 * worker's own cgroup is not writable (no delegation), there is none, and the process group and
 * the step's mark (step-survivors.mjs) are what find the step's processes.
 * Shared by runStep (the step ended or was stopped) and the group reaper (its worker died).
 */
import { existsSync, mkdirSync, readFileSync, rmdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { commandOf, processGroupOf } from './step-survivors.mjs';

/** Where this worker makes its steps' cgroups, under its own cgroup. */
const STEPS_DIR = 'champion-loop-steps';

/**
 * The cgroup v2 directory of this process, from /proc/self/mountinfo (the cgroup2 mount) and
 * /proc/self/cgroup (its `0::` line); null without cgroup v2.
 * @returns {string | null}
 */
function ownCgroup() {
  try {
    const mount = readFileSync('/proc/self/mountinfo', 'utf8')
      .split('\n')
      .map((line) => line.split(' - '))
      .find(([, fs]) => fs?.startsWith('cgroup2 '))?.[0]
      ?.split(' ')[4];
    const own = readFileSync('/proc/self/cgroup', 'utf8')
      .split('\n')
      .find((line) => line.startsWith('0::'))
      ?.slice(3);
    return mount === undefined || own === undefined ? null : path.join(mount, own);
  } catch {
    return null;
  }
}

/** @type {{ root: string | null; why: string } | undefined} */
let found;

/**
 * Where this worker's step cgroups go (`<its cgroup>/champion-loop-steps`), made if need be, or
 * null, with why in words either way. Looked up once per process.
 * @returns {{ root: string | null; why: string }}
 */
export function stepCgroups() {
  if (found !== undefined) return found;
  const own = ownCgroup();
  if (own === null) return (found = { root: null, why: 'no cgroup v2 is mounted' });
  const root = path.join(own, STEPS_DIR);
  try {
    mkdirSync(root, { recursive: true });
    // A cgroup this worker may move processes into: making one and removing it again proves it.
    const probe = path.join(root, `probe-${process.pid}`);
    mkdirSync(probe, { recursive: true });
    rmdirSync(probe);
    return (found = { root, why: `each step runs in a cgroup of its own under ${root}` });
  } catch (error) {
    const reason = error instanceof Error && 'code' in error ? String(error.code) : String(error);
    return (found = { root: null, why: `its cgroup ${own} is not writable (${reason}): no cgroup per step` });
  }
}

/**
 * The cgroup of the step with `mark` (its dots and all: a mark is digits and dots), or null.
 * @param {string} mark
 * @returns {string | null}
 */
export function stepCgroupPath(mark) {
  const { root } = stepCgroups();
  return root === null ? null : path.join(root, `step-${mark}`);
}

/**
 * Make the step's cgroup; the file its first process writes its pid to to join it
 * (`<cgroup>/cgroup.procs`), or null where steps have no cgroup.
 * @param {string} mark
 * @returns {string | null}
 */
export function makeStepCgroup(mark) {
  const cgroup = stepCgroupPath(mark);
  if (cgroup === null) return null;
  try {
    mkdirSync(cgroup, { recursive: true });
    return path.join(cgroup, 'cgroup.procs');
  } catch {
    return null;
  }
}

/**
 * The command line that runs `command` inside the cgroup whose `cgroup.procs` is `procs`: a shell
 * that joins it, then execs the command (same pid, same process group), so that nothing the
 * command starts, however early, is outside. Where joining fails the command runs all the same.
 * @param {string} procs
 * @param {readonly string[]} command
 * @returns {string[]}
 */
export function inCgroup(procs, command) {
  return ['/bin/sh', '-c', 'echo $$ > "$0" 2>/dev/null; exec "$@"', procs, ...command];
}

/**
 * The pids in a cgroup now.
 * @param {string} cgroup
 * @returns {number[]}
 */
function members(cgroup) {
  try {
    return readFileSync(path.join(cgroup, 'cgroup.procs'), 'utf8')
      .split('\n')
      .map(Number)
      .filter((pid) => Number.isSafeInteger(pid) && pid > 0);
  } catch {
    return [];
  }
}

/**
 * @param {string} cgroup
 */
function removeCgroup(cgroup) {
  try {
    rmdirSync(cgroup);
  } catch {
    // Gone already, or a process not yet reaped keeps it: an empty cgroup costs nothing.
  }
}

/**
 * SIGKILL everything in the step's cgroup (`cgroup.kill`, or each member where the kernel has no
 * cgroup.kill) and remove it once the kernel has emptied it (`waitMs`: how long to wait for
 * that here; 0: try once, `removeStepCgroup` later). Returns the members that were not in
 * process group `group` (they left it), with their command lines, for the step's log.
 * @param {string} mark
 * @param {number} [group]
 * @param {number} [waitMs]
 * @returns {{ pid: number; command: string }[]}
 */
export function killStepCgroup(mark, group, waitMs = 0) {
  const cgroup = stepCgroupPath(mark);
  if (cgroup === null || !existsSync(cgroup)) return [];
  const found = members(cgroup);
  const outside = found
    .filter((pid) => group === undefined || processGroupOf(pid) !== group)
    .map((pid) => ({ pid, command: commandOf(pid) }));
  try {
    writeFileSync(path.join(cgroup, 'cgroup.kill'), '1\n');
  } catch {
    for (const pid of found) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Gone meanwhile.
      }
    }
  }
  const until = Date.now() + waitMs;
  // Only the group reaper waits here, on its way out: it blocks nothing else.
  while (!removeStepCgroup(mark) && Date.now() < until)
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  return outside;
}

/**
 * Remove the step's cgroup if it is empty: true when it is gone.
 * @param {string} mark
 * @returns {boolean}
 */
export function removeStepCgroup(mark) {
  const cgroup = stepCgroupPath(mark);
  if (cgroup === null || !existsSync(cgroup)) return true;
  if (members(cgroup).length > 0) return false;
  removeCgroup(cgroup);
  return !existsSync(cgroup);
}
