import { spawn } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Connection } from '@temporalio/client';
import { execa, type ResultPromise } from 'execa';
import { devServerArgs, type DevServerConfig } from './dev-config.js';

/** A dev server this process started. */
export interface DevServer {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string;
  readonly pid: number;
  readonly logFile: string;
  /** SIGTERM, then SIGKILL after a grace period; resolves when the process is gone. */
  stop(): Promise<void>;
  /** SIGKILL at once (fault tests: the server dies without warning). */
  kill(): Promise<void>;
}

/** The dev server did not answer in time or exited during start-up. */
export class DevServerStartError extends Error {
  constructor(
    message: string,
    readonly logFile: string,
    { logSays = true }: { logSays?: boolean } = {},
  ) {
    super(logSays ? `${message} (server log: ${logFile})` : message);
    this.name = 'DevServerStartError';
  }
}

/** A port of the dev-server config is taken by another program: nothing was started. */
export class DevServerPortTakenError extends DevServerStartError {
  constructor(
    readonly key: 'port' | 'ui_port',
    readonly port: number,
    logFile: string,
  ) {
    super(`port ${port} (${key}) is taken by another program, so the dev server cannot listen there`, logFile, {
      logSays: false,
    });
    this.name = 'DevServerPortTakenError';
  }
}

/** Whether something listens on `host:port` already (a listen there fails with EADDRINUSE). */
async function portTaken(host: string, port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'EADDRINUSE' ? resolve(true) : reject(error),
    );
    server.listen(port, host, () => server.close(() => resolve(false)));
  });
}

/** A TCP port nobody listens on right now. */
export async function freePort(host = '127.0.0.1'): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, host, () => {
      const address = server.address();
      server.close(() =>
        typeof address === 'object' && address ? resolve(address.port) : reject(new Error('no port')),
      );
    });
  });
}

/**
 * A free port below the kernel's ephemeral range. A server restarted on its own ports (the fault
 * tests kill and restart it) must find them free again: a port from the ephemeral range (what
 * binding port 0 gives) may meanwhile be any outgoing connection's source port on this box, as a
 * loaded full run found (`ui_port ... is taken by another program`). Random, so test files that
 * pick at once rarely meet; start-up tries other ports if they do. `avoid`: ports picked already
 * and not bound yet (a server that takes several).
 */
export async function restartablePort(avoid: ReadonlySet<number> = new Set()): Promise<number> {
  const range = await readFile('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').catch(() => '32768 60999');
  const low = Number(range.trim().split(/\s+/)[0]) || 32768;
  const from = Math.min(10_000, low - 1_000);
  for (let tries = 0; tries < 100; tries += 1) {
    const port = from + Math.floor(Math.random() * (low - from));
    if (!avoid.has(port) && !(await portTaken('127.0.0.1', port))) return port;
  }
  throw new Error(`no free port between ${from} and ${low - 1} for a server`);
}

/** Whether a Temporal frontend answers at `address` and serves `namespace`. */
export async function serverAnswers(address: string, namespace: string): Promise<boolean> {
  let connection: Connection | undefined;
  try {
    connection = await Connection.connect({ address, connectTimeout: 1_000 });
    await connection.workflowService.describeNamespace({ namespace });
    return true;
  } catch {
    return false;
  } finally {
    await connection?.close().catch(() => undefined);
  }
}

/**
 * Keep the namespace's closed histories for `days` (a weeks-long loop's generations must outlive
 * their close), the way an operator does it: `temporal operator namespace update --retention`.
 */
async function setRetention(cli: string, address: string, namespace: string, days: number): Promise<void> {
  await execa(
    cli,
    ['operator', 'namespace', 'update', '--namespace', namespace, '--retention', `${days * 24}h`, '--address', address],
    { stdin: 'ignore' },
  );
}

async function waitForExit(exit: Promise<unknown>, ms: number): Promise<boolean> {
  const exited = exit.then(
    () => true,
    () => true,
  );
  return Promise.race([exited, sleep(ms).then(() => false)]);
}

/**
 * A child that outlives this process: its own session and process group, stdin closed, stdout and
 * stderr appended straight to `logFile` (no pipe through this process, so nothing here waits on it
 * and it never gets SIGPIPE when this process exits), and not counted by this process's event loop.
 */
function spawnDetached(
  command: string,
  args: string[],
  logFile: string,
): { pid: number | undefined; exit: Promise<unknown> } {
  const log = openSync(logFile, 'a');
  try {
    const child = spawn(command, args, { detached: true, stdio: ['ignore', log, log] });
    const exit = new Promise((resolve) => {
      child.once('exit', resolve);
      child.once('error', resolve);
    });
    child.unref();
    return { pid: child.pid, exit };
  } finally {
    closeSync(log);
  }
}

/** A child tied to this process (killed when it exits), its output appended to `logFile`. */
function spawnAttached(
  command: string,
  args: string[],
  logFile: string,
): { pid: number | undefined; exit: Promise<unknown> } {
  const child: ResultPromise = execa(command, args, {
    detached: true,
    stdin: 'ignore',
    stdout: { file: logFile, append: true },
    stderr: { file: logFile, append: true },
    cleanup: true,
    reject: false,
  });
  return { pid: child.pid, exit: child };
}

/**
 * Start `temporal server start-dev` from a dev-server config, in its own process group, and
 * resolve once it answers. The process outlives this one only if `detached` is asked for.
 */
export async function startDevServer(options: {
  cli: string;
  config: DevServerConfig;
  projectRoot: string;
  logFile: string;
  detached?: boolean;
  readyTimeoutMs?: number;
}): Promise<DevServer> {
  const { cli, config, projectRoot, logFile } = options;
  for (const key of ['port', 'ui_port'] as const)
    if (await portTaken(config.ip, config[key])) throw new DevServerPortTakenError(key, config[key], logFile);
  await mkdir(path.dirname(logFile), { recursive: true });
  await mkdir(path.dirname(path.resolve(projectRoot, config.db_filename)), { recursive: true });
  const child = (options.detached ? spawnDetached : spawnAttached)(cli, devServerArgs(config, projectRoot), logFile);
  const pid = child.pid;
  if (pid === undefined) throw new DevServerStartError(`could not start ${cli}`, logFile);
  const address = `${config.ip}:${config.port}`;
  const killGroup = (signal: NodeJS.Signals): void => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  let exited = false;
  void child.exit.then(() => (exited = true));
  while (!(await serverAnswers(address, config.namespace))) {
    if (exited)
      throw new DevServerStartError(`the dev server exited during start-up (is port ${config.port} taken?)`, logFile);
    if (Date.now() > deadline) {
      killGroup('SIGKILL');
      throw new DevServerStartError(`the dev server did not answer at ${address} in time`, logFile);
    }
    await sleep(200);
  }
  await setRetention(cli, address, config.namespace, config.retention_days);
  return {
    address,
    namespace: config.namespace,
    uiUrl: `http://${config.ip}:${config.ui_port}`,
    pid,
    logFile,
    async stop() {
      killGroup('SIGTERM');
      if (!(await waitForExit(child.exit, 15_000))) {
        killGroup('SIGKILL');
        await waitForExit(child.exit, 5_000);
      }
    },
    async kill() {
      killGroup('SIGKILL');
      await waitForExit(child.exit, 5_000);
    },
  };
}
