// The worker's side of the group reaper (group-reaper.mjs): one reaper process per worker
// process, told of every step's process group while it runs, so that the groups die with the
// worker even when the worker is killed with SIGKILL and can clean up nothing itself.
import { spawn, type ChildProcess } from 'node:child_process';
import process from 'node:process';
import { fileURLToPath } from 'node:url';

const REAPER = fileURLToPath(new URL('./group-reaper.mjs', import.meta.url));

/** Groups of steps still running in this process, with their steps' marks (step-survivors.mjs). */
const live = new Map<number, string>();
let reaper: ChildProcess | null = null;

function send(target: ChildProcess, line: string): void {
  // A reaper that died meanwhile: its exit handler starts the next one, which gets every live group.
  if (target.stdin?.writable === true) target.stdin.write(`${line}\n`);
}

function startReaper(): ChildProcess {
  const started = spawn(process.execPath, [REAPER], { stdio: ['pipe', 'ignore', 'ignore'], detached: true });
  started.stdin.on('error', () => undefined);
  started.on('error', (error) => {
    process.emitWarning(
      `group reaper could not start: ${error.message}; steps of this worker are not killed if it dies`,
    );
  });
  started.on('exit', () => {
    if (reaper !== started) return;
    reaper = null;
    // Killed by someone: the groups still running need a reaper at once, not at the next step.
    if (live.size > 0) ensureReaper();
  });
  // Neither the reaper nor its pipe keeps this process alive; its end closes the pipe.
  started.unref();
  (started.stdin as unknown as { unref?: () => void }).unref?.();
  for (const [pgid, mark] of live) send(started, `+${pgid} ${mark}`);
  return started;
}

function ensureReaper(): ChildProcess {
  reaper ??= startReaper();
  return reaper;
}

/**
 * Registers a step's process group (its leader's pid) and its mark (the STEP_MARK value its
 * processes carry) with this process's reaper, started on first use. Call it right after the spawn, in the same tick: the reaper has it before the
 * worker could die.
 */
export function watchGroup(pgid: number, mark: string): void {
  live.set(pgid, mark);
  send(ensureReaper(), `+${pgid} ${mark}`);
}

/** The group has ended and its leftovers were killed: the reaper forgets it. */
export function releaseGroup(pgid: number): void {
  live.delete(pgid);
  if (reaper !== null) send(reaper, `-${pgid}`);
}

/** The reaper's pid, starting it if needed (tests and diagnostics). */
export function reaperPid(): number | undefined {
  return ensureReaper().pid;
}
