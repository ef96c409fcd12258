// Workers as separate OS processes (`champion-loop worker ...`), so that fault tests can kill
// them with real signals and start them again, as an operator or a crash would.
import { readdir, readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { execa, type ResultPromise } from 'execa';
import { inject } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/champion-loop.js', import.meta.url));

/** A GPU lane's card (a simulated one: its nvidia-smi first on PATH), its slots and need for a job not learned yet. */
export interface LaneCard {
  readonly slots: number;
  readonly minFreeGiB: number;
}

/** Which worker: the orchestrator, the package worker, or one lane (a CPU lane unless it has a card). */
export type WorkerKind =
  | { readonly kind: 'orchestrator' }
  | { readonly kind: 'package' }
  | { readonly kind: 'gpu'; readonly host: string; readonly device: number; readonly card?: LaneCard };

export interface WorkerProcessOptions {
  readonly address: string;
  readonly namespace: string;
  /** Variables on top of this process's (e.g. FIXTURE_FAIL_TRAIN for the lane's subprocesses). */
  readonly env?: Readonly<Record<string, string | undefined>>;
  /** How long to wait for the worker to say it is connected (the orchestrator bundles its workflows first). */
  readonly readyTimeoutMs?: number;
  /**
   * A host of its own: the worker runs in a private mount namespace with an empty tmpfs over this
   * folder, so what it writes there no other worker sees, and what others wrote there it cannot
   * read (a fleet without a shared disk). Needs root, as the tests' tmpfs mounts do.
   */
  readonly privateDir?: string;
  /**
   * The orchestrator: the workflow bundle it starts from (`--workflow-bundle`); by default the one
   * the test set-up built for the whole run (`champion-loop bundle`, test/global-setup.ts), as
   * production orchestrators are deployed; null: it bundles its workflows at start.
   */
  readonly workflowBundle?: string | null;
}

/** How a worker process ended. */
export interface WorkerExit {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

/** One running `champion-loop worker` process. */
export interface WorkerProcess {
  readonly name: string;
  readonly pid: number;
  /** Everything it printed so far (stdout and stderr interleaved). */
  output(): string;
  /** Send a signal (SIGKILL: the worker dies without warning; SIGTERM: it shuts down gracefully). */
  signal(signal: NodeJS.Signals): void;
  /** Resolves when the process is gone. */
  readonly exited: Promise<WorkerExit>;
  /** Start the same worker again (same kind, flags and variables); resolves when it is connected. */
  restart(): Promise<WorkerProcess>;
}

/** The worker's command-line arguments after `champion-loop`. */
function workerArgs(
  worker: WorkerKind,
  options: Pick<WorkerProcessOptions, 'address' | 'namespace' | 'workflowBundle'>,
): string[] {
  const connection = ['--address', options.address, '--namespace', options.namespace];
  if (worker.kind === 'gpu') {
    const lane =
      worker.card === undefined
        ? ['--cpu', '--min-free-gib', '0']
        : ['--slots', String(worker.card.slots), '--min-free-gib', String(worker.card.minFreeGiB)];
    return ['worker', 'gpu', ...lane, '--host', worker.host, '--device', String(worker.device), ...connection];
  }
  if (worker.kind === 'orchestrator') {
    const bundle = options.workflowBundle === undefined ? inject('workflowBundleFile') : options.workflowBundle;
    return ['worker', 'orchestrator', ...connection, ...(bundle === null ? [] : ['--workflow-bundle', bundle])];
  }
  return ['worker', worker.kind, ...connection];
}

function nameOf(worker: WorkerKind): string {
  return worker.kind === 'gpu' ? `lane ${worker.host}/gpu${worker.device}` : worker.kind;
}

/** Start a worker process and wait until it says it is connected (it polls right after). */
export async function startWorkerProcess(worker: WorkerKind, options: WorkerProcessOptions): Promise<WorkerProcess> {
  const args = [BIN, ...workerArgs(worker, options)];
  // unshare and sh exec in place: the pid is the worker's, and signals reach it.
  const [file, argv] =
    options.privateDir === undefined
      ? [process.execPath, args]
      : [
          'unshare',
          [
            '--mount',
            '--propagation',
            'private',
            'sh',
            '-c',
            'mount -t tmpfs champion-loop-host "$1" && shift && exec "$@"',
            'sh',
            options.privateDir,
            process.execPath,
            ...args,
          ],
        ];
  const child: ResultPromise = execa(file, argv, {
    env: { ...options.env },
    extendEnv: true,
    stdin: 'ignore',
    all: true,
    buffer: false,
    reject: false,
    // Killed with the test process if a test fails half-way.
    cleanup: true,
  });
  const pid = child.pid;
  if (pid === undefined) throw new Error(`could not start the ${nameOf(worker)} worker`);
  let text = '';
  child.all?.on('data', (chunk: Buffer) => {
    text += chunk.toString('utf8');
  });
  const exited: Promise<WorkerExit> = child.then(
    (result) => ({ exitCode: result.exitCode ?? null, signal: result.signal ?? null }),
    () => ({ exitCode: null, signal: null }),
  );
  let gone = false;
  void exited.then(() => (gone = true));
  const process_: WorkerProcess = {
    name: nameOf(worker),
    pid,
    output: () => text,
    signal(signal) {
      try {
        process.kill(pid, signal);
      } catch {
        // Already gone.
      }
    },
    exited,
    restart: () => startWorkerProcess(worker, options),
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 120_000);
  while (!text.includes(' connected to ')) {
    if (gone) throw new Error(`the ${process_.name} worker exited before it connected:\n${text}`);
    if (Date.now() > deadline) {
      process_.signal('SIGKILL');
      throw new Error(`the ${process_.name} worker did not connect in time:\n${text}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return process_;
}

/**
 * `champion-loop worker gpu --drain` for a lane started by startWorkerProcess (same host, device
 * and variables, so the same pid file): resolves with its exit and what it printed once it ends.
 */
export async function drainCommand(
  worker: Extract<WorkerKind, { kind: 'gpu' }>,
  options: Pick<WorkerProcessOptions, 'env'>,
): Promise<WorkerExit & { readonly output: string }> {
  const result = await execa(
    process.execPath,
    [BIN, 'worker', 'gpu', '--drain', '--host', worker.host, '--device', String(worker.device)],
    { env: { ...options.env }, extendEnv: true, stdin: 'ignore', all: true, reject: false, timeout: 300_000 },
  );
  return { exitCode: result.exitCode ?? null, signal: result.signal ?? null, output: result.all };
}

/** Kill a worker with SIGKILL and wait until the process is gone. */
export async function killWorker(worker: WorkerProcess): Promise<WorkerExit> {
  worker.signal('SIGKILL');
  return worker.exited;
}

/** Whether the worker's process is gone by now (killed, or exited). */
export async function hasExited(worker: WorkerProcess): Promise<boolean> {
  return Promise.race([
    worker.exited.then(() => true),
    new Promise<boolean>((resolve) => setImmediate(() => resolve(false))),
  ]);
}

/** Stop a worker the way an operator does (SIGTERM) and wait for it to finish shutting down. */
export async function terminateWorker(worker: WorkerProcess, timeoutMs = 60_000): Promise<WorkerExit> {
  worker.signal('SIGTERM');
  const timer = new Promise<null>((resolve) => setTimeout(() => resolve(null), timeoutMs).unref());
  const exit = await Promise.race([worker.exited, timer]);
  if (exit === null) {
    worker.signal('SIGKILL');
    throw new Error(`the ${worker.name} worker did not stop within ${timeoutMs} ms of SIGTERM:\n${worker.output()}`);
  }
  return exit;
}

/** The process group of a live process, from /proc (null when it is gone). */
export async function processGroup(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (in parentheses, which may itself hold spaces): state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const state = fields[0];
    return state === 'Z' || state === 'X' ? null : Number(fields[2]);
  } catch {
    return null;
  }
}

/** The parent pid of a process, from /proc; null once it is gone. */
export async function parentOf(pid: number): Promise<number | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // pid (comm) state ppid ...: comm may hold spaces, so count from the last parenthesis.
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return null;
  }
}

/** Live processes (zombies aside) in process group `pgid`, from /proc. */
export async function groupMembers(pgid: number): Promise<number[]> {
  const members: number[] = [];
  for (const entry of await readdir('/proc')) {
    const pid = Number(entry);
    if (Number.isInteger(pid) && (await processGroup(pid)) === pgid) members.push(pid);
  }
  return members;
}
