#!/usr/bin/env node
// @ts-check
/** Carve the test or reserve role out of a split's development role (seeded). */
import process from 'node:process';
import { CliArgs, UsageError } from './lib/args.mjs';
import { runMain } from './lib/cli.mjs';
import { crash, fail, faultMode, hang } from './lib/faults.mjs';
import { carve, readSplit, writeSplit } from './lib/split.mjs';

await runMain('split-carve', async (argv) => {
  const args = new CliArgs(argv, { split: 'one', output: 'one', role: 'one', 'test-fraction': 'one', seed: 'one' });
  const role = args.need('role');
  if (role !== 'test' && role !== 'reserve') throw new UsageError('--role must be test or reserve');
  const output = args.need('output');
  const seed = args.number('seed');
  const fraction = args.number('test-fraction');
  const mode = faultMode('SPLIT', [role], undefined);
  if (mode === 'fail') fail('split');
  if (mode === 'hang') await hang('split');
  const split = carve(await readSplit(args.need('split')), 'development', role, fraction, seed);
  if (mode === 'crash') {
    writeSplit(output, split, 200);
    await crash('split');
  }
  writeSplit(output, split);
  const sizes = Object.entries(split.roles)
    .map(([name, ids]) => `${name}=${ids.length}`)
    .join(' ');
  process.stdout.write(`split carve ${role} ${output} ${sizes}\n`);
});
