import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadDevServerConfig, type DevServerConfig } from './dev-config.js';
import { serverAnswers, startDevServer } from './dev-server.js';
import { PROJECT_ROOT } from './project-root.js';
import { ensureTemporalCli } from './provision.js';
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

/** Stop the background dev server this project started; false when none was running. */
export async function stopBackgroundDevServer(): Promise<boolean> {
  const { pidFile } = await devServerFiles();
  const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
  await rm(pidFile, { force: true }).catch(() => undefined);
  if (!pid || !processAlive(pid)) return false;
  process.kill(-pid, 'SIGTERM');
  for (let waited = 0; processAlive(pid) && waited < 15_000; waited += 200) await sleep(200);
  if (processAlive(pid)) process.kill(-pid, 'SIGKILL');
  return true;
}

/** The project's dev server address (whether or not it runs). */
export async function devServerAddress(overrides: PortOverrides = {}): Promise<Omit<DevServerAddress, 'started'>> {
  return addressOf(await devServerFiles(overrides));
}
