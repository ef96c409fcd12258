import { readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import { processAlive } from '../support/process-alive.js';

/**
 * A `temporal server start-dev` process that runs on a given database file, and where it listens,
 * as its own command line says (`--ip`, `--port`, `--ui-port`, `--db-filename`).
 */
export interface DevServerProcess {
  readonly pid: number;
  /** `ip:port`, or undefined when its command line does not say (no /proc: only the pid file). */
  readonly address?: string;
  readonly uiUrl?: string;
}

/** The flag values of a `temporal server start-dev` command line, or undefined when it is none. */
function startDevFlags(argv: readonly string[]): Map<string, string> | undefined {
  const at = argv.indexOf('start-dev');
  if (at < 1 || argv[at - 1] !== 'server') return undefined;
  const flags = new Map<string, string>();
  for (let index = at + 1; index < argv.length; index += 1) {
    const arg = argv[index] ?? '';
    if (!arg.startsWith('--')) continue;
    const equals = arg.indexOf('=');
    if (equals > 0) flags.set(arg.slice(0, equals), arg.slice(equals + 1));
    else if (index + 1 < argv.length && !(argv[index + 1] ?? '').startsWith('--'))
      flags.set(arg, argv[(index += 1)] ?? '');
  }
  return flags;
}

async function commandLine(pid: number): Promise<string[] | undefined> {
  const text = await readFile(`/proc/${pid}/cmdline`, 'utf8').catch(() => undefined);
  return text === undefined || text === '' ? undefined : text.replace(/\0$/, '').split('\0');
}

function describe(pid: number, flags: Map<string, string>): DevServerProcess {
  const ip = flags.get('--ip') ?? '127.0.0.1';
  const port = flags.get('--port') ?? flags.get('-p') ?? '7233';
  const uiPort = flags.get('--ui-port');
  return { pid, address: `${ip}:${port}`, ...(uiPort ? { uiUrl: `http://${ip}:${uiPort}` } : {}) };
}

/** Whether `flags` (from a command line run in `cwd`) name `dbFile` as the database. */
function onDatabase(flags: Map<string, string>, dbFile: string, cwd: string): boolean {
  const db = flags.get('--db-filename') ?? flags.get('-f');
  return db !== undefined && path.resolve(cwd, db) === path.resolve(dbFile);
}

/**
 * The dev server that runs on `dbFile` now, if any: found by the command lines in /proc (a server
 * started in the foreground, by another clone's command, or whose pid file was overwritten counts
 * too), else by the pid file alone where there is no /proc. One database, one server: SQLite does
 * not keep a second `temporal server start-dev` off the same file, so this is what does.
 */
export async function devServerOnDatabase(dbFile: string, pidFile: string): Promise<DevServerProcess | undefined> {
  const entries = await readdir('/proc').catch(() => undefined);
  if (entries === undefined) {
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    return processAlive(pid) ? { pid } : undefined;
  }
  const found: DevServerProcess[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const argv = await commandLine(pid);
    const flags = argv && startDevFlags(argv);
    if (!flags) continue;
    const cwd = await readFileLink(`/proc/${pid}/cwd`);
    if (onDatabase(flags, dbFile, cwd ?? '/')) found.push(describe(pid, flags));
  }
  // A server's own children (none today) would share its flags: the oldest pid is the server.
  return found.sort((a, b) => a.pid - b.pid)[0];
}

async function readFileLink(link: string): Promise<string | undefined> {
  return readlink(link).catch(() => undefined);
}

/**
 * Whether `pid` (from a pid file) is still a dev server on `dbFile`: a pid file outlives its server
 * (a reboot, a `kill -9`), and its number may since belong to any other process. Without /proc,
 * only whether it runs.
 */
export async function isDevServerOnDatabase(pid: number, dbFile: string): Promise<boolean> {
  if (!processAlive(pid)) return false;
  const argv = await commandLine(pid);
  if (argv === undefined) return (await readdir('/proc').catch(() => undefined)) === undefined;
  const flags = startDevFlags(argv);
  return flags !== undefined && onDatabase(flags, dbFile, (await readFileLink(`/proc/${pid}/cwd`)) ?? '/');
}
