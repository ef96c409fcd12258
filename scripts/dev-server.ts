// The local Temporal dev server from temporal-dev.yaml.
//   npm run dev-server              run in the foreground until Ctrl-C (then stop cleanly)
//   npm run dev-server -- start     start in the background (or report the one already running)
//   npm run dev-server -- stop      stop the background server
//   npm run dev-server -- status    say whether it answers
import { readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { loadDevServerConfig } from '../src/devserver/dev-config.js';
import { serverAnswers, startDevServer } from '../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../src/devserver/project-root.js';
import { ensureTemporalCli } from '../src/devserver/provision.js';

const configFile = path.join(PROJECT_ROOT, 'temporal-dev.yaml');
const pidFile = path.join(PROJECT_ROOT, '.temporal', 'dev-server.pid');
const logFile = path.join(PROJECT_ROOT, '.temporal', 'dev-server.log');
const command = process.argv[2] ?? 'foreground';

const config = await loadDevServerConfig(configFile);
const address = `${config.ip}:${config.port}`;

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function start(detached: boolean) {
  if (await serverAnswers(address, config.namespace)) {
    console.log(`A Temporal server already answers at ${address} (namespace ${config.namespace}); using it.`);
    return undefined;
  }
  const cli = await ensureTemporalCli((line) => console.error(`[provision] ${line}`));
  const server = await startDevServer({ cli: cli.path, config, projectRoot: PROJECT_ROOT, logFile, detached });
  console.log(`Temporal dev server ${cli.version} at ${server.address}, namespace ${server.namespace}`);
  console.log(`Web UI: ${server.uiUrl}`);
  console.log(`Database: ${path.resolve(PROJECT_ROOT, config.db_filename)}; log: ${logFile}`);
  return server;
}

switch (command) {
  case 'foreground': {
    const server = await start(false);
    if (!server) break;
    console.log('Press Ctrl-C to stop.');
    const stop = async () => {
      console.log('Stopping the dev server...');
      await server.stop();
      process.exit(0);
    };
    process.once('SIGINT', () => void stop());
    process.once('SIGTERM', () => void stop());
    await new Promise(() => undefined);
    break;
  }
  case 'start': {
    const server = await start(true);
    if (server) await writeFile(pidFile, `${server.pid}\n`);
    break;
  }
  case 'stop': {
    const pid = Number((await readFile(pidFile, 'utf8').catch(() => '')).trim());
    if (!pid || !alive(pid)) {
      console.log('No background dev server started by this project is running.');
      await rm(pidFile, { force: true });
      break;
    }
    process.kill(-pid, 'SIGTERM');
    for (let waited = 0; alive(pid) && waited < 15_000; waited += 200) await sleep(200);
    if (alive(pid)) process.kill(-pid, 'SIGKILL');
    await rm(pidFile, { force: true });
    console.log(`Stopped the dev server (pid ${pid}).`);
    break;
  }
  case 'status':
    console.log((await serverAnswers(address, config.namespace)) ? `up at ${address}` : `not answering at ${address}`);
    break;
  default:
    console.error(`unknown command ${command}; use start, stop, status or nothing (foreground)`);
    process.exit(2);
}
