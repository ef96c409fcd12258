// The local Temporal dev server from temporal-dev.yaml.
//   npm run dev-server              run in the foreground until Ctrl-C (then stop cleanly)
//   npm run dev-server -- start     start in the background and return (or report the one already running)
//   npm run dev-server -- stop      stop the background server
//   npm run dev-server -- status    say whether it answers
import path from 'node:path';
import { Command } from 'commander';
import {
  devServerAddress,
  devServerFiles,
  ensureBackgroundDevServer,
  stopBackgroundDevServer,
} from '../src/devserver/background.js';
import { serverAnswers, startDevServer } from '../src/devserver/dev-server.js';
import { PROJECT_ROOT } from '../src/devserver/project-root.js';
import { ensureTemporalCli } from '../src/devserver/provision.js';

const provisionLog = (line: string) => console.error(`[provision] ${line}`);

async function foreground(command: string | undefined): Promise<void> {
  if (command !== undefined)
    program.error(`unknown command ${command}; use start, stop, status or nothing (foreground)`);
  const where = await devServerAddress();
  if (await serverAnswers(where.address, where.namespace)) {
    console.log(`A Temporal server already answers at ${where.address} (namespace ${where.namespace}); using it.`);
    return;
  }
  const { config, logFile } = await devServerFiles();
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
  .argument('[command]', 'start, stop or status')
  .exitOverride((error) => process.exit(error.exitCode === 0 ? 0 : 2))
  .action(foreground);

program
  .command('start')
  .description('start in the background (or report the one already running)')
  .action(async () => {
    const server = await ensureBackgroundDevServer(provisionLog);
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
  .description('stop the background server')
  .action(async () => {
    console.log(
      (await stopBackgroundDevServer())
        ? 'Stopped the dev server.'
        : 'No background dev server started by this project is running.',
    );
  });

program
  .command('status')
  .description('say whether it answers')
  .action(async () => {
    const where = await devServerAddress();
    console.log(
      (await serverAnswers(where.address, where.namespace))
        ? `up at ${where.address}`
        : `not answering at ${where.address}`,
    );
  });

await program.parseAsync(process.argv);
