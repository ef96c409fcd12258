import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadDevServerConfig, type DevServerConfig } from './dev-config.js';
import { serverAnswers, startDevServer } from './dev-server.js';
import { PROJECT_ROOT } from './project-root.js';
import { ensureTemporalCli } from './provision.js';
import { devServerOnDatabase, type DevServerProcess, isDevServerOnDatabase } from './running-server.js';
import { processAlive } from '../support/process-alive.js';

/** The project's own dev server, as temporal-dev.yaml describes it. */
const DEV_CONFIG_FILE = path.join(PROJECT_ROOT, 'temporal-dev.yaml');

/** Another dev-server config than temporal-dev.yaml (a test's: free ports, a temp database). */
export const DEV_CONFIG_ENV = 'CHAMPION_LOOP_DEV_CONFIG';

/**
 * The background dev server's files: its config, and its log and pid files, which live next to
 * its database (for temporal-dev.yaml: `.temporal/dev-server.log` and `.temporal/dev-server.pid`).
 */
export interface DevServerFiles {
  readonly configFile: string;
  readonly config: DevServerConfig;
  readonly logFile: string;
  readonly pidFile: string;
}

/** Ports given on the command line, over the config file's. */
export type PortOverrides = Partial<Pick<DevServerConfig, 'port' | 'ui_port'>>;

export async function devServerFiles(overrides: PortOverrides = {}): Promise<DevServerFiles> {
  const configFile = process.env[DEV_CONFIG_ENV] ? path.resolve(process.env[DEV_CONFIG_ENV]) : DEV_CONFIG_FILE;
  const config = { ...(await loadDevServerConfig(configFile)), ...overrides };
  const dir = path.dirname(path.resolve(PROJECT_ROOT, config.db_filename));
  return { configFile, config, logFile: path.join(dir, 'dev-server.log'), pidFile: path.join(dir, 'dev-server.pid') };
}

/** Where the project's dev server answers. */
export interface DevServerAddress {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string;
  /** False when a server already answered there and was reused. */
  readonly started: boolean;
  /** The background server's log (written only by one this project started). */
  readonly logFile: string;
}

function addressOf(files: DevServerFiles): Omit<DevServerAddress, 'started'> {
  const { config } = files;
  return {
    address: `${config.ip}:${config.port}`,
    namespace: config.namespace,
    uiUrl: `http://${config.ip}:${config.ui_port}`,
    logFile: files.logFile,
  };
}

/** A dev server runs on this database already, at other ports: a second one is refused (issue 48). */
class DevServerDatabaseInUseError extends Error {
  constructor(
    readonly dbFile: string,
    readonly running: DevServerProcess,
  ) {
    const where = running.address
      ? `at ${running.address}${running.uiUrl ? ` (Web UI ${running.uiUrl})` : ''}, pid ${running.pid}`
      : `pid ${running.pid}`;
    super(
      `a dev server already runs on the database ${dbFile}: ${where}. One database, one server: ` +
        (running.address
          ? `use that one (--address ${running.address} for every champion-loop command and worker), or stop it first`
          : 'stop it first') +
        ` (npm run dev-server -- stop), or give this one a database of its own (db_filename in a config named by ${DEV_CONFIG_ENV}). Nothing was started.`,
    );
    this.name = 'DevServerDatabaseInUseError';
  }
}

/** The database file of a dev-server config, as an absolute path. */
export function databaseFile(files: DevServerFiles): string {
  return path.resolve(PROJECT_ROOT, files.config.db_filename);
}

/**
 * Refuse to start a second server on a database a server runs on already: two servers on one
 * SQLite file, and the second overwriting the first's pid file (so `stop` stops the wrong one).
 */
export async function refuseSecondServer(files: DevServerFiles): Promise<void> {
  const running = await devServerOnDatabase(databaseFile(files), files.pidFile);
  if (running) throw new DevServerDatabaseInUseError(databaseFile(files), running);
}

/**
 * Reuse the dev server if it answers, else start it in the background: detached in its own
 * process group, its output in the log file, its pid in the pid file. It outlives this process,
 * and this process can exit at once (nothing of the server keeps it alive).
 */
export async function ensureBackgroundDevServer(
  log: (line: string) => void = () => undefined,
  overrides: PortOverrides = {},
): Promise<DevServerAddress> {
  const files = await devServerFiles(overrides);
  const where = addressOf(files);
  if (await serverAnswers(where.address, files.config.namespace)) return { ...where, started: false };
  await refuseSecondServer(files);
  const cli = await ensureTemporalCli(log);
  const server = await startDevServer({
    cli: cli.path,
    config: files.config,
    projectRoot: PROJECT_ROOT,
    logFile: files.logFile,
    detached: true,
  });
  await writeFile(files.pidFile, `${server.pid}\n`);
  return { ...where, started: true };
}

/**
 * Stop the background dev server this project started on the config's database; false when none
 * was running. A pid file whose process is no dev server on that database (its number reused since)
 * is removed, and nothing is signalled.
 */
export async function stopBackgroundDevServer(overrides: PortOverrides = {}): Promise<boolean> {
  const files = await devServerFiles(overrides);
  const { pidFile } = files;
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  await rm(pidFile, { force: true }).catch(() => undefined);
  if (!pid || !(await isDevServerOnDatabase(pid, databaseFile(files)))) return false;
  process.kill(-pid, 'SIGTERM');
  for (let waited = 0; processAlive(pid) && waited < 15_000; waited += 200) await sleep(200);
  if (processAlive(pid)) process.kill(-pid, 'SIGKILL');
  return true;
}

/** The project's dev server address (whether or not it runs). */
export async function devServerAddress(overrides: PortOverrides = {}): Promise<Omit<DevServerAddress, 'started'>> {
  return addressOf(await devServerFiles(overrides));
}
