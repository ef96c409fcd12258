// The local Temporal dev server from temporal-dev.yaml.
//   npm run dev-server              run in the foreground until Ctrl-C (then stop cleanly)
//   npm run dev-server -- start     start in the background and return (or report the one already running)
//   npm run dev-server -- stop      stop the background server
//   npm run dev-server -- status    say whether it answers
import path from 'node:path';
import { Command } from 'commander';
import {
  databaseFile,
  devServerAddress,
  devServerFiles,
  ensureBackgroundDevServer,
  type PortOverrides,
  refuseSecondServer,
  stopBackgroundDevServer,
} from '../src/devserver/background.js';
import { DevServerPortTakenError, serverAnswers, startDevServer } from '../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../src/devserver/project-root.js';
import { ensureTemporalCli } from '../src/devserver/provision.js';
import { devServerOnDatabase } from '../src/devserver/running-server.js';

const provisionLog = (line: string) => console.error(`[provision] ${line}`);

/** `--port` and `--ui-port`, over temporal-dev.yaml's. */
function portOverrides(options: { port?: string; uiPort?: string }): PortOverrides {
  const port = (text: string | undefined, flag: string): number | undefined => {
    if (text === undefined) return undefined;
    const value = Number(text);
    if (!Number.isInteger(value) || value < 1 || value > 65535)
      program.error(`${flag} must be a port, 1-65535 (got ${text})`);
    return value;
  };
  const ports = { port: port(options.port, '--port'), ui_port: port(options.uiPort, '--ui-port') };
  return Object.fromEntries(Object.entries(ports).filter(([, value]) => value !== undefined));
}

const PORTS_HELP = `
Ports: temporal-dev.yaml's port (gRPC) and ui_port (Web UI), or --port and --ui-port for one start.
A server on other ports than 7233 needs --address 127.0.0.1:PORT (or TEMPORAL_ADDRESS) for every
champion-loop command and worker. CHAMPION_LOOP_DEV_CONFIG=FILE uses another config file instead of
temporal-dev.yaml (for every command here and the demo).`;

async function foreground(command: string | undefined, options: { port?: string; uiPort?: string }): Promise<void> {
  if (command !== undefined)
    program.error(`unknown command ${command}; use start, stop, status or nothing (foreground)`);
  const overrides = portOverrides(options);
  const where = await devServerAddress(overrides);
  if (await serverAnswers(where.address, where.namespace)) {
    console.log(`A Temporal server already answers at ${where.address} (namespace ${where.namespace}); using it.`);
    return;
  }
  const files = await devServerFiles(overrides);
  const { config, logFile } = files;
  await refuseSecondServer(files);
  const cli = await ensureTemporalCli(provisionLog);
  const server = await startDevServer({ cli: cli.path, config, projectRoot: PROJECT_ROOT, logFile });
  console.log(`Temporal dev server ${cli.version} at ${server.address}, namespace ${server.namespace}`);
  console.log(`Web UI: ${server.uiUrl}`);
  console.log(`Database: ${path.resolve(PROJECT_ROOT, config.db_filename)}; log: ${logFile}`);
  console.log('Press Ctrl-C to stop.');
  const stop = async () => {
    console.log('Stopping the dev server...');
    await server.stop();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  await new Promise(() => undefined);
}

const program = new Command('npm run dev-server --')
  .description(
    'The local Temporal dev server from temporal-dev.yaml; with no command, run it in the foreground until Ctrl-C.',
  )
  .enablePositionalOptions()
  .argument('[command]', 'start, stop or status')
  .option('--port <port>', "gRPC port (default: temporal-dev.yaml's port, 7233)")
  .option('--ui-port <port>', "Web UI port (default: temporal-dev.yaml's ui_port, 8233)")
  .addHelpText('after', PORTS_HELP)
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .action(foreground);

program
  .command('start')
  .description('start in the background (or report the one already running)')
  .option('--port <port>', "gRPC port (default: temporal-dev.yaml's port, 7233)")
  .option('--ui-port <port>', "Web UI port (default: temporal-dev.yaml's ui_port, 8233)")
  .addHelpText('after', PORTS_HELP)
  .action(async (options: { port?: string; uiPort?: string }) => {
    const server = await ensureBackgroundDevServer(provisionLog, portOverrides(options));
    console.log(
      `${server.started ? 'Started' : 'Already running:'} Temporal dev server at ${server.address}, namespace ${server.namespace}; Web UI ${server.uiUrl}`,
    );
    if (server.started)
      console.log(
        `It runs in the background (log: ${path.relative(process.cwd(), server.logFile) || server.logFile}); stop it with: npm run dev-server -- stop`,
      );
  });

program
  .command('stop')
  .description("stop the background server (the one on the config's database, whatever its ports)")
  .option(
    '--port <port>',
    'the gRPC port it was started with (checked: a server on the database at another port is not stopped)',
  )
  .option('--ui-port <port>', 'the Web UI port it was started with (accepted as start takes it; not needed)')
  .action(async (options: { port?: string; uiPort?: string }) => {
    const overrides = portOverrides(options);
    if (overrides.port !== undefined) {
      // `stop --port N` after `start --port N` (issue 47): the server on this database, if it is the one at N.
      const files = await devServerFiles(overrides);
      const where = await devServerAddress(overrides);
      const running = await devServerOnDatabase(databaseFile(files), files.pidFile);
      if (running?.address !== undefined && running.address !== where.address) {
        console.error(
          `npm run dev-server: no dev server of this project runs at ${where.address}; the one on its database ` +
            `(${databaseFile(files)}) runs at ${running.address}, pid ${running.pid}. Stop that one with: ` +
            `npm run dev-server -- stop --port ${running.address.split(':').pop()}. Nothing was stopped.`,
        );
        process.exit(1);
      }
    }
    console.log(
      (await stopBackgroundDevServer(overrides))
        ? 'Stopped the dev server.'
        : 'No background dev server started by this project is running.',
    );
  });

program
  .command('status')
  .description('say whether it answers')
  .option('--port <port>', "gRPC port (default: temporal-dev.yaml's port, 7233)")
  .action(async (options: { port?: string }) => {
    const where = await devServerAddress(portOverrides(options));
    console.log(
      (await serverAnswers(where.address, where.namespace))
        ? `up at ${where.address}`
        : `not answering at ${where.address}`,
    );
  });

try {
  await program.parseAsync(process.argv);
} catch (error) {
  // One line that says what to do, never a stack trace.
  if (error instanceof DevServerPortTakenError) {
    const other = error.key === 'port' ? '--port' : '--ui-port';
    console.error(
      `npm run dev-server: ${error.message}. Stop that program, or choose another port: ` +
        `npm run dev-server -- start ${other} ${error.port + 1} (or ${error.key} in temporal-dev.yaml)` +
        (error.key === 'port' ? `, and connect with --address 127.0.0.1:${error.port + 1}` : '') +
        '. Nothing was started.',
    );
  } else console.error(`npm run dev-server: ${(error as Error).message}`);
  process.exit(1);
}
