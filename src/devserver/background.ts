import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadDevServerConfig, type DevServerConfig } from './dev-config.js';
import { serverAnswers, startDevServer } from './dev-server.js';
import { PROJECT_ROOT } from './project-root.js';
import { ensureTemporalCli } from './provision.js';

/** The project's own dev server, as temporal-dev.yaml describes it. */
export const DEV_CONFIG_FILE = path.join(PROJECT_ROOT, 'temporal-dev.yaml');
const PID_FILE = path.join(PROJECT_ROOT, '.temporal', 'dev-server.pid');
export const DEV_LOG_FILE = path.join(PROJECT_ROOT, '.temporal', 'dev-server.log');

/** Where the project's dev server answers. */
export interface DevServerAddress {
  readonly address: string;
  readonly namespace: string;
  readonly uiUrl: string;
  /** False when a server already answered there and was reused. */
  readonly started: boolean;
}

function addressOf(config: DevServerConfig): Omit<DevServerAddress, 'started'> {
  return { address: `${config.ip}:${config.port}`, namespace: config.namespace, uiUrl: `http://${config.ip}:${config.ui_port}` };
}

/** Reuse the dev server if it answers, else start it in the background (it outlives this process). */
export async function ensureBackgroundDevServer(log: (line: string) => void = () => undefined): Promise<DevServerAddress> {
  const config = await loadDevServerConfig(DEV_CONFIG_FILE);
  const where = addressOf(config);
  if (await serverAnswers(where.address, config.namespace)) return { ...where, started: false };
  const cli = await ensureTemporalCli(log);
  const server = await startDevServer({ cli: cli.path, config, projectRoot: PROJECT_ROOT, logFile: DEV_LOG_FILE, detached: true });
  await writeFile(PID_FILE, `${server.pid}\n`);
  return { ...where, started: true };
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Stop the background dev server this project started; false when none was running. */
export async function stopBackgroundDevServer(): Promise<boolean> {
  const pid = Number((await readFile(PID_FILE, 'utf8').catch(() => '')).trim());
  await rm(PID_FILE, { force: true }).catch(() => undefined);
  if (!pid || !alive(pid)) return false;
  process.kill(-pid, 'SIGTERM');
  for (let waited = 0; alive(pid) && waited < 15_000; waited += 200) await sleep(200);
  if (alive(pid)) process.kill(-pid, 'SIGKILL');
  return true;
}

/** The project's dev server address (whether or not it runs). */
export async function devServerAddress(): Promise<Omit<DevServerAddress, 'started'>> {
  return addressOf(await loadDevServerConfig(DEV_CONFIG_FILE));
}
