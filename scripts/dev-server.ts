// The local Temporal dev server from temporal-dev.yaml.
//   npm run dev-server              run in the foreground until Ctrl-C (then stop cleanly)
//   npm run dev-server -- start     start in the background (or report the one already running)
//   npm run dev-server -- stop      stop the background server
//   npm run dev-server -- status    say whether it answers
import path from 'node:path';
import { DEV_CONFIG_FILE, DEV_LOG_FILE, devServerAddress, ensureBackgroundDevServer, stopBackgroundDevServer } from '../src/devserver/background.js';
import { loadDevServerConfig } from '../src/devserver/dev-config.js';
import { serverAnswers, startDevServer } from '../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../src/devserver/project-root.js';
import { ensureTemporalCli } from '../src/devserver/provision.js';

const provisionLog = (line: string) => console.error(`[provision] ${line}`);
const command = process.argv[2] ?? 'foreground';
const where = await devServerAddress();

switch (command) {
  case 'foreground': {
    if (await serverAnswers(where.address, where.namespace)) {
      console.log(`A Temporal server already answers at ${where.address} (namespace ${where.namespace}); using it.`);
      break;
    }
    const config = await loadDevServerConfig(DEV_CONFIG_FILE);
    const cli = await ensureTemporalCli(provisionLog);
    const server = await startDevServer({ cli: cli.path, config, projectRoot: PROJECT_ROOT, logFile: DEV_LOG_FILE });
    console.log(`Temporal dev server ${cli.version} at ${server.address}, namespace ${server.namespace}`);
    console.log(`Web UI: ${server.uiUrl}`);
    console.log(`Database: ${path.resolve(PROJECT_ROOT, config.db_filename)}; log: ${DEV_LOG_FILE}`);
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
    const server = await ensureBackgroundDevServer(provisionLog);
    console.log(`${server.started ? 'Started' : 'Already running:'} Temporal dev server at ${server.address}, namespace ${server.namespace}; Web UI ${server.uiUrl}`);
    break;
  }
  case 'stop':
    console.log((await stopBackgroundDevServer()) ? 'Stopped the dev server.' : 'No background dev server started by this project is running.');
    break;
  case 'status':
    console.log((await serverAnswers(where.address, where.namespace)) ? `up at ${where.address}` : `not answering at ${where.address}`);
    break;
  default:
    console.error(`unknown command ${command}; use start, stop, status or nothing (foreground)`);
    process.exit(2);
}
