// Score one raw mail with a packaged model: --package DIR --message FILE (or - for stdin).
// Prints {margin, decision} with decision pass, fail or reject (inside the package's band).
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { CliArgs } from './lib/args.js';
import { runMain } from './lib/cli.js';
import { readText } from './lib/files.js';
import { decideMail, readPackage } from './lib/packaged-model.js';

await runMain('score', (argv) => {
  const args = new CliArgs(argv, { package: 'one', message: 'one' });
  const packaged = readPackage(args.need('package'));
  const message = args.need('message');
  const raw = message === '-' ? readFileSync(0, 'utf8') : readText(message, 'message');
  process.stdout.write(`${JSON.stringify(decideMail(packaged, raw))}\n`);
});
