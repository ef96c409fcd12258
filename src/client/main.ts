// champion-loop: start, watch and steer champion loops; run their workers. Wiring only: each
// command is a file of src/client/commands/.
import { Command } from 'commander';
import { startTracing, stopTracing } from '../tracing/tracing.js';
import { errorText } from './error-words.js';
import { setCommandName } from './commands/shared.js';
import { addStartCommand } from './commands/start.js';
import { addRelocateCommand } from './commands/relocate.js';
import { addStopCommand } from './commands/stop.js';
import { addAdvanceCommand } from './commands/advance.js';
import { addPauseCommand } from './commands/pause.js';
import { addUnpauseCommand } from './commands/unpause.js';
import { addStatusCommand } from './commands/status.js';
import { addWatchCommand } from './commands/watch.js';
import { addLedgerCommand } from './commands/ledger.js';
import { addReportCommand } from './commands/report.js';
import { addRenderConfigCommand } from './commands/render-config.js';
import { addFetchPackageCommand } from './commands/fetch-package.js';
import { addCodecServerCommand } from './commands/codec-server.js';
import { addStateCommand } from './commands/state.js';
import { addWorkerCommand } from './commands/worker.js';
import { addBundleCommand } from './commands/bundle.js';

// A reader that stops reading (`champion-loop status L | head -1`) closes the pipe: end quietly,
// as other command-line tools do, instead of on an unhandled EPIPE.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(process.exitCode ?? 0);
  });
}

const program = new Command('champion-loop')
  .description('A durable champion loop on Temporal: trains, evaluates and promotes gate classifiers.')
  .showHelpAfterError();

program.hook('preAction', (_program, command) => {
  setCommandName(command.name());
});

addStartCommand(program);
addRelocateCommand(program);
addStopCommand(program);
addAdvanceCommand(program);
addPauseCommand(program);
addUnpauseCommand(program);
addStatusCommand(program);
addWatchCommand(program);
addLedgerCommand(program);
addReportCommand(program);
addRenderConfigCommand(program);
addFetchPackageCommand(program);
addCodecServerCommand(program);
addStateCommand(program);
addWorkerCommand(program);
addBundleCommand(program);

startTracing('cli');
try {
  await program.parseAsync();
} catch (error) {
  console.error(errorText(error));
  process.exitCode = 1;
} finally {
  // The command's spans go out before it exits (nothing to do with tracing off).
  await stopTracing();
}
