import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdir, open } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import process from 'node:process';
import { finished as streamFinished } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { CancelledFailure } from '@temporalio/common';
import { execa } from 'execa';
import { commandNotFound } from './step-errors.js';
import { programProblem } from './find-program.js';

const GUARD = fileURLToPath(new URL('./process-guard.mjs', import.meta.url));

/** Heartbeat details while a step runs: enough to find its processes on the lane's host. */
export interface StepHeartbeat {
  readonly step: string;
  /** The command's pid (the guard's until the command has started). */
  readonly pid: number;
  /** The process group: the guard's pid. */
  readonly pgid: number;
  readonly elapsedMs: number;
}

export interface RunStepOptions {
  /** What runs, for heartbeats and messages, e.g. `train`. */
  readonly step: string;
  /** Where the command comes from, for the not-found message, e.g. `loop.yaml commands.train`. */
  readonly source?: string;
  /** Program and arguments: never a shell line. */
  readonly command: readonly string[];
  readonly cwd: string;
  /** stdout and stderr are appended here; the folder is created. */
  readonly log: string;
  readonly env?: Readonly<Record<string, string>>;
  readonly heartbeat?: (details: StepHeartbeat) => void;
  readonly heartbeatIntervalMs?: number;
  /** Aborting kills the whole process group and makes runStep reject with the abort reason. */
  readonly signal?: AbortSignal;
  /** How long the group gets between SIGTERM and SIGKILL. */
  readonly killGraceMs?: number;
  /** Called once the command runs (tests use it to watch the group). */
  readonly onStart?: (processes: { readonly pid: number; readonly pgid: number }) => void;
}

/** How a step ended. `exitCode` is null when a signal ended it. */
export interface StepResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly pid: number;
  readonly pgid: number;
  readonly started: string;
  readonly finished: string;
  /** Byte offset in the log where this run's output begins (earlier attempts come before). */
  readonly logStart: number;
}

let subprocessEnv: Readonly<Record<string, string>> = {};
const scopedEnv = new AsyncLocalStorage<Readonly<Record<string, string>>>();

/**
 * Sets variables every later step's subprocess in this process gets, e.g. a lane's
 * CUDA_VISIBLE_DEVICES. With several lanes in one process, use withSubprocessEnv instead.
 */
export function setSubprocessEnv(env: Readonly<Record<string, string>>): void {
  subprocessEnv = { ...env };
}

/** Runs `work` with variables its steps' subprocesses get on top of setSubprocessEnv's. */
export function withSubprocessEnv<T>(env: Readonly<Record<string, string>>, work: () => Promise<T>): Promise<T> {
  return scopedEnv.run({ ...scopedEnv.getStore(), ...env }, work);
}

/**
 * The worker's own Temporal credentials: no step of the contract needs them, and a stack that
 * prints its environment (a crash dump, an experiment tracker) would put them in the loop's logs.
 */
export const WORKER_SECRETS: readonly string[] = ['TEMPORAL_API_KEY', 'TEMPORAL_TLS_CLIENT_KEY_DATA'];

function withoutWorkerSecrets(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const kept = { ...env };
  for (const name of WORKER_SECRETS) delete kept[name];
  return kept;
}

/** The exit status as Python's Popen reports it (the seed's ledger): the code, or minus the signal number. */
export function returnCode(result: Pick<StepResult, 'exitCode' | 'signal'>): number {
  if (result.exitCode !== null) {
    return result.exitCode;
  }
  const number = result.signal === null ? undefined : constants.signals[result.signal as NodeJS.Signals];
  return number === undefined ? -1 : -number;
}

/**
 * Runs one command to its end in a process group of its own, led by the process guard, with
 * its output appended to a log file (never held in memory). Heartbeats while it runs; on abort
 * the whole group gets SIGTERM, then SIGKILL after the grace period, and the abort rethrows.
 */
export async function runStep(options: RunStepOptions): Promise<StepResult> {
  const [program] = options.command;
  if (program === undefined || program === '') {
    throw commandNotFound(`empty command for ${options.step} (${options.source ?? options.step}): give a program and its arguments`);
  }
  const env = { ...withoutWorkerSecrets(process.env), ...subprocessEnv, ...scopedEnv.getStore(), ...options.env };
  const problem = await programProblem(program, options.cwd, env);
  if (problem !== null) {
    const what = problem.kind === 'not_found' ? 'command not found' : 'command not executable';
    throw commandNotFound(
      `${what}: ${program} (${options.source ?? options.step}): ${problem.detail}; install it or fix the command in loop.yaml`,
    );
  }
  throwIfAborted(options.signal);
  return runGuarded(options, env, await writeLogHeader(options));
}

/** Appends one line naming the step and its command; returns where the command's output will begin. */
async function writeLogHeader(options: RunStepOptions): Promise<number> {
  await mkdir(dirname(options.log), { recursive: true });
  const log = await open(options.log, 'a');
  try {
    await log.write(`--- ${new Date().toISOString()} ${options.step}: ${JSON.stringify(options.command)}\n`);
    return (await log.stat()).size;
  } finally {
    await log.close();
  }
}

async function runGuarded(options: RunStepOptions, env: NodeJS.ProcessEnv, logStart: number): Promise<StepResult> {
  const startedMs = Date.now();
  const started = new Date(startedMs).toISOString();
  // The guard opens the log itself, so the command writes to the file directly, not through us.
  const subprocess = execa(process.execPath, [GUARD, '--log', options.log, '--', ...options.command], {
    cwd: options.cwd,
    env,
    extendEnv: false,
    detached: true,
    cleanup: false,
    stdin: 'pipe',
    stdout: 'pipe',
    stderr: { file: options.log, append: true },
    buffer: false,
    reject: false,
  });
  const pgid = subprocess.pid;
  let pid = pgid ?? 0;
  const statuses: Record<string, unknown>[] = [];
  const statusRead = streamFinished(subprocess.stdout).catch(() => undefined);
  let pending = '';
  subprocess.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString('utf8');
    let newline = pending.indexOf('\n');
    while (newline >= 0) {
      const status = parseStatus(pending.slice(0, newline));
      pending = pending.slice(newline + 1);
      if (status !== null) {
        statuses.push(status);
        if (typeof status.pid === 'number' && pgid !== undefined) {
          pid = status.pid;
          options.onStart?.({ pid, pgid });
        }
      }
      newline = pending.indexOf('\n');
    }
  });

  const beat = (): void => {
    if (pgid === undefined) return;
    try {
      options.heartbeat?.({ step: options.step, pid, pgid, elapsedMs: Date.now() - startedMs });
    } catch {
      // A heartbeat that cannot be sent must not stop the step; the server's timeout judges.
    }
  };
  beat();
  const heartbeats = setInterval(beat, options.heartbeatIntervalMs ?? 5_000);
  let killTimer: NodeJS.Timeout | undefined;
  const onAbort = (): void => {
    if (pgid === undefined) return;
    signalGroup(pgid, 'SIGTERM');
    killTimer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), options.killGraceMs ?? 5_000);
  };
  options.signal?.addEventListener('abort', onAbort, { once: true });
  if (options.signal?.aborted === true) onAbort();

  try {
    const result = await subprocess;
    await statusRead;
    if (pgid !== undefined) {
      // Whatever the guard could not reap (it was killed itself) goes with its group.
      signalGroup(pgid, 'SIGKILL');
    }
    throwIfAborted(options.signal);
    if (pgid === undefined) {
      throw new Error(`${options.step}: could not start the process guard: ${result.message ?? 'unknown error'}`);
    }
    const finished = new Date().toISOString();
    const end = statuses.find((status) => 'code' in status || 'error' in status);
    if (end !== undefined && typeof end.error === 'string') {
      throw commandNotFound(
        `command could not start: ${options.command[0] ?? ''} (${options.source ?? options.step}): ${String(end.message)}`,
      );
    }
    // Without a status line the guard itself was killed: report how it ended.
    const exitCode = end === undefined ? (result.exitCode ?? null) : typeof end.code === 'number' ? end.code : null;
    const signal = end === undefined ? (result.signal ?? null) : typeof end.signal === 'string' ? end.signal : null;
    return { exitCode, signal, pid, pgid, started, finished, logStart };
  } finally {
    clearInterval(heartbeats);
    if (killTimer !== undefined) clearTimeout(killTimer);
    options.signal?.removeEventListener('abort', onAbort);
  }
}

function parseStatus(line: string): Record<string, unknown> | null {
  try {
    const value: unknown = JSON.parse(line);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function signalGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // ESRCH: the group is already gone.
  }
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted !== true) return;
  const reason: unknown = signal.reason;
  throw reason instanceof Error ? reason : new CancelledFailure(typeof reason === 'string' ? reason : 'cancelled');
}
