import { closeSync, openSync } from 'node:fs';
import { appendFile, mkdir, open } from 'node:fs/promises';
import { constants } from 'node:os';
import { dirname } from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { CancelledFailure } from '@temporalio/common';
import { execa } from 'execa';
import { releaseGroup, watchGroup } from './group-reaper.js';
import { inCgroup, killStepCgroup, makeStepCgroup, removeStepCgroup } from './step-cgroup.mjs';
import { inSpan, traceContextEnv } from '../../tracing/tracing.js';
import { killMarked, STEP_MARK } from './step-survivors.mjs';
import { signalGroup, superviseStep } from './step-supervision.js';
import { commandNotFound } from './step-errors.js';
import { programProblem } from './find-program.js';
import { activityHooks } from './activity-context.js';
import { currentStepScope, scopeEnv } from './step-scope.js';
import { deviceWords } from './device-words.js';
import type { StepAdmitted, StepGpuNeed, StepGpuUse, StepHeartbeat, StepRegistry, StepResult } from './step-types.js';
import { definedFields } from '../../support/defined-fields.js';

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
  /**
   * Ends a command that makes no progress: when the log and the `watch` paths (files or folders,
   * recursively; entries, sizes and mtimes) have not changed for `quietMs`, the whole group is
   * killed as on abort and the step ends with `stalled`. Checked at every heartbeat, and at least
   * four times per `quietMs`.
   */
  readonly progress?: { readonly watch: readonly string[]; readonly quietMs: number };
  /**
   * The GPU memory this step may grow to, when its job knows (a candidate's learned or set need):
   * on a lane that watches its device the step starts only once there is room for it. Absent:
   * the lane's own per-job need (loop.yaml `min_free_gib`).
   */
  readonly gpuNeed?: StepGpuNeed;
}

/** The variable a step admitted by its GPU need finds that need in, in MiB: a cap its stack may apply. */
const GPU_MEMORY_CAP = 'CHAMPION_LOOP_GPU_MEMORY_MIB';

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

/** The exit status as Python's Popen reports it (docs/ledger.md): the code, or minus the signal number. */
export function returnCode(result: Pick<StepResult, 'exitCode' | 'signal'>): number {
  if (result.exitCode !== null) {
    return result.exitCode;
  }
  const number = result.signal === null ? undefined : constants.signals[result.signal as NodeJS.Signals];
  return number === undefined ? -1 : -number;
}

/**
 * Runs one command to its end in a process group of its own (the command leads it; the worker's
 * group reaper kills the group if the worker dies), with its output appended to a log file
 * (never held in memory). Heartbeats while it runs; on abort
 * the whole group gets SIGTERM, then SIGKILL after the grace period, and the abort rethrows.
 */
export async function runStep(options: RunStepOptions): Promise<StepResult> {
  const [program] = options.command;
  if (program === undefined || program === '') {
    throw commandNotFound(
      `empty command for ${options.step} (${options.source ?? options.step}): give a program and its arguments`,
    );
  }
  const scope = currentStepScope();
  const env = { ...withoutWorkerSecrets(process.env), ...scopeEnv(), ...options.env };
  const problem = await programProblem(program, options.cwd, env);
  if (problem !== null) {
    const what = problem.kind === 'not_found' ? 'command not found' : 'command not executable';
    throw commandNotFound(
      `${what}: ${program} (${options.source ?? options.step}): ${problem.detail}; install it or fix the command in loop.yaml`,
    );
  }
  // A lane that stops at once stops its steps as a cancellation does; the step's own abort wins.
  const signals = [options.signal, scope?.stopping].filter((signal) => signal !== undefined);
  const signal = signals.length > 1 ? AbortSignal.any(signals) : signals[0];
  const killGraceMs = options.killGraceMs ?? scope?.killGraceMs;
  const scopedOptions = { ...options, signal, ...definedFields({ killGraceMs }) };
  throwIfAborted(signal);
  // With tracing on, a span of the step's own (under its activity's), which the command may join.
  return inSpan(
    `step ${options.step}`,
    {
      'champion_loop.step': options.step,
      'process.command_args': [...options.command],
      'process.working_directory': options.cwd,
    },
    async () =>
      runInGroup(scopedOptions, { ...env, ...traceContextEnv() }, await writeLogHeader(options), scope?.steps),
    (result) => ({
      attributes: {
        'process.pid': result.pid,
        'process.exit.code': result.exitCode ?? -1,
        ...(result.signal === null ? {} : { 'champion_loop.signal': result.signal }),
        'champion_loop.stalled': result.stalled,
      },
      ...(result.exitCode === 0 ? {} : { error: `exited ${result.exitCode ?? `by ${result.signal}`}` }),
    }),
  );
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

/** Starts the command leading a process group of its own, its output appended to the log by its own descriptor. */
function spawnInGroup(program: string, args: readonly string[], options: RunStepOptions, env: NodeJS.ProcessEnv) {
  // execa passes a descriptor number to the spawn as it is; its types only spell out 3 to 9.
  const output = openSync(options.log, 'a') as 3;
  try {
    return execa(program, [...args], {
      cwd: options.cwd,
      env,
      extendEnv: false,
      // The command leads its own process group, so it and its children end together.
      detached: true,
      cleanup: false,
      stdin: 'ignore',
      stdout: output,
      stderr: output,
      buffer: false,
      reject: false,
    });
  } finally {
    // The child has its own copy of the descriptor once spawned; the output never passes through here.
    closeSync(output);
  }
}

/** Heartbeats that also say the step's device as its lane last read it (a GPU lane that admits steps). */
function withDevice(
  heartbeat: RunStepOptions['heartbeat'],
  steps: StepRegistry | undefined,
  mark: string,
): RunStepOptions['heartbeat'] {
  if (heartbeat === undefined || steps?.device === undefined) return heartbeat;
  return (details) => {
    const device = steps.device?.(mark) ?? null;
    heartbeat(device === null ? details : { ...details, device, gpu: deviceWords(details, device, Date.now()) });
  };
}

/** Steps started by this process: with its pid and the time, each step's mark is its own. */
let stepsStarted = 0;

/**
 * Runs the command once there is room for it: spawns it in a group (and cgroup) of its own,
 * supervises it while it runs, then reaps what it left behind and reports how it ended.
 */
async function runInGroup(
  given: RunStepOptions,
  env: NodeJS.ProcessEnv,
  logStart: number,
  steps: StepRegistry | undefined,
): Promise<StepResult> {
  const [program = ''] = given.command;
  stepsStarted += 1;
  const mark = `${process.pid}.${Date.now()}.${stepsStarted}`;
  const options = { ...given, heartbeat: withDevice(given.heartbeat, steps, mark) };
  // On a lane that watches its GPU the step starts once there is room for what it may grow to.
  const admitted = await waitForRoom(options, steps, mark);
  let gpu: StepGpuUse | null = null;
  const startedMs = Date.now();
  const started = new Date(startedMs).toISOString();
  const { subprocess, pgid } = spawnStep(options, env, mark, admitted, steps);
  const supervision = superviseStep(options, pgid, startedMs);

  try {
    const result = await subprocess;
    if (pgid !== undefined) gpu = await reapStep(options, mark, pgid, steps);
    throwIfAborted(options.signal);
    if (pgid === undefined) {
      const why = result.originalMessage ?? result.shortMessage;
      await appendFile(options.log, `${options.step}: cannot start ${program}: ${why}\n`).catch(() => undefined);
      throw commandNotFound(`command could not start: ${program} (${options.source ?? options.step}): ${why}`);
    }
    const finished = new Date().toISOString();
    return {
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      pid: pgid,
      pgid,
      started,
      finished,
      logStart,
      stalled: supervision.stalled,
      ...(gpu ? { gpu } : {}),
      ...(admitted ? { admitted } : {}),
    };
  } finally {
    // A step that ended by an abort or an error is off the lane's books too (a second call is a no-op).
    if ((pgid !== undefined || admitted) && gpu === null) steps?.ended(mark);
    supervision.stop();
  }
}

/**
 * Spawns the step's command leading a process group of its own (inside the step's cgroup where
 * the machine allows), with its GPU cap and mark in its environment, and puts the group on the
 * books: the reaper kills it if this process dies, and the lane counts the step as started. A
 * spawn that throws takes the step off the books again. `pgid` is undefined when the command
 * could not start.
 */
function spawnStep(
  options: RunStepOptions,
  env: NodeJS.ProcessEnv,
  mark: string,
  admitted: StepAdmitted | null,
  steps: StepRegistry | undefined,
): { subprocess: ReturnType<typeof spawnInGroup>; pgid: number | undefined } {
  const [program = '', ...args] = options.command;
  let subprocess: ReturnType<typeof spawnInGroup>;
  // Where the machine allows, the step joins a cgroup of its own before its command runs.
  const procs = makeStepCgroup(mark);
  const [launcher = program, ...launch] = procs === null ? [program, ...args] : inCgroup(procs, [program, ...args]);
  // The step's need, handed to it as a hard cap its stack may apply (docs/contract.md, "GPU memory").
  const cap = admitted === null ? {} : { [GPU_MEMORY_CAP]: String(admitted.needMiB) };
  try {
    subprocess = spawnInGroup(launcher, launch, options, { ...env, ...cap, [STEP_MARK]: mark });
  } catch (error) {
    if (admitted) steps?.ended(mark);
    removeStepCgroup(mark);
    throw error;
  }
  const pgid = subprocess.pid;
  if (pgid === undefined) removeStepCgroup(mark);
  // In the same tick as the spawn: from here on the group dies with this process, however it ends.
  if (pgid !== undefined) {
    watchGroup(pgid, mark);
    if (!admitted) steps?.started(mark);
    options.onStart?.({ pid: pgid, pgid });
  }
  return { subprocess, pgid };
}

/**
 * Once the command has exited: kills what it left running (its own children) with its group,
 * and what left the group (setsid) but carries the step's mark, saying in the log who that was;
 * then takes the group off the reaper's and the lane's books. Returns the GPU use the lane saw.
 */
async function reapStep(
  options: RunStepOptions,
  mark: string,
  pgid: number,
  steps: StepRegistry | undefined,
): Promise<StepGpuUse | null> {
  signalGroup(pgid, 'SIGKILL');
  const survivors = await killLeftovers(mark, pgid);
  releaseGroup(pgid);
  const gpu = steps?.ended(mark) ?? null;
  if (survivors.length > 0) {
    const who = survivors.map((survivor) => `pid ${survivor.pid} (${survivor.command})`).join(', ');
    await appendFile(
      options.log,
      `${options.step}: killed ${survivors.length} process${survivors.length === 1 ? '' : 'es'} the step left running outside its process group: ${who}\n`,
    ).catch(() => undefined);
  }
  return gpu;
}

/**
 * Waits until the lane's registry admits the step (it then counts it as started), heartbeating
 * meanwhile and saying in the step's log why it waits. Null when the registry does not admit
 * (no lane, a CPU lane): the step starts at once and is counted at its spawn.
 */
async function waitForRoom(
  options: RunStepOptions,
  steps: StepRegistry | undefined,
  mark: string,
): Promise<StepAdmitted | null> {
  if (steps?.admit === undefined) return null;
  const sinceMs = Date.now();
  let why: string | null = null;
  const beat = (): void => {
    if (why === null) return;
    try {
      options.heartbeat?.({ step: options.step, pid: 0, pgid: 0, elapsedMs: Date.now() - sinceMs, waiting: why });
    } catch {
      // As for a running step: the server's heartbeat timeout judges.
    }
  };
  const heartbeats = setInterval(beat, options.heartbeatIntervalMs ?? 5_000);
  const said: Promise<void>[] = [];
  let admitted: StepAdmitted;
  try {
    admitted = await steps.admit(mark, options.gpuNeed, {
      signal: options.signal,
      // What Temporal ordered the step by (its kind's, step-priority.ts): a less urgent one never takes its room.
      priorityKey: activityHooks().priorityKey,
      waiting: (text) => {
        if (text === why) return;
        why = text;
        beat();
        said.push(appendFile(options.log, `${options.step}: ${text}\n`).catch(() => undefined));
      },
    });
  } catch (error) {
    throwIfAborted(options.signal);
    throw error;
  } finally {
    clearInterval(heartbeats);
    await Promise.all(said);
  }
  if (why !== null) {
    // The card did no work for the step meanwhile: its job's report says so (the lane's idle share).
    currentStepScope()?.memoryWaits?.push([sinceMs, Date.now()]);
    const waited = Math.round((Date.now() - sinceMs) / 1000);
    await appendFile(options.log, `${options.step}: the GPU has room after ${waited} s; starting\n`).catch(
      () => undefined,
    );
  }
  return admitted;
}

/**
 * Kill what the step left running outside its process group: everything in its cgroup (where
 * there is one) and every process carrying its mark; each once, for the step's log. The cgroup
 * is removed once the kernel has emptied it (waited for here, up to 2 s, without blocking).
 */
async function killLeftovers(mark: string, pgid: number): Promise<{ pid: number; command: string }[]> {
  const inCgroup = killStepCgroup(mark, pgid);
  const marked = killMarked(mark, pgid).filter((found) => !inCgroup.some((other) => other.pid === found.pid));
  for (let tries = 0; tries < 100 && !removeStepCgroup(mark); tries += 1) await sleep(20);
  return [...inCgroup, ...marked];
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted !== true) return;
  const reason: unknown = signal.reason;
  throw reason instanceof Error ? reason : new CancelledFailure(typeof reason === 'string' ? reason : 'cancelled');
}
