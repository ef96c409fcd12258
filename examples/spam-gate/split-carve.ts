// Carve the test or reserve role out of a split's development role, seeded and per class.
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.js';
import { runMain } from './lib/cli.js';
import { carve, readSplit, writeSplit } from './lib/split.js';

await runMain('split-carve', async (argv) => {
  const args = new CliArgs(argv, { split: 'one', output: 'one', role: 'one', 'test-fraction': 'one', seed: 'one' });
  const role = args.need('role');
  if (role !== 'test' && role !== 'reserve') throw new UsageError('--role must be test or reserve');
  const output = args.need('output');
  const split = carve(
    await readSplit(args.need('split')),
    'development',
    role,
    args.number('test-fraction'),
    args.integer('seed'),
  );
  writeSplit(output, split);
  const sizes = Object.entries(split.roles)
    .map(([name, ids]) => `${name}=${ids.length}`)
    .join(' ');
  process.stdout.write(`split carve ${role} ${output} ${sizes}\n`);
});
