#!/usr/bin/env node
// @ts-check
/** Split the synthetic data set into development and validation (seeded). */
import process from 'node:process';
import { CliArgs } from './lib/args.mjs';
import { runMain } from './lib/cli.mjs';
import { allIds, readDatasetSpec } from './lib/dataset.mjs';
import { crash, fail, faultMode, hang } from './lib/faults.mjs';
import { carve, writeSplit } from './lib/split.mjs';

await runMain('split-generate', async (argv) => {
  const args = new CliArgs(argv, { 'data-root': 'one', output: 'one', seed: 'one', 'validation-fraction': 'one' });
  const output = args.need('output');
  const seed = args.number('seed');
  const fraction = args.number('validation-fraction');
  const mode = faultMode('SPLIT', ['generate'], undefined);
  if (mode === 'fail') fail('split');
  if (mode === 'hang') await hang('split');
  const dataset = readDatasetSpec(args.need('data-root'));
  const whole = { dataset, seed, roles: { development: allIds(dataset) } };
  const split = carve(whole, 'development', 'validation', fraction, seed);
  if (mode === 'crash') {
    writeSplit(output, split, 200);
    await crash('split');
  }
  writeSplit(output, split);
  const sizes = `development=${split.roles.development?.length} validation=${split.roles.validation?.length}`;
  process.stdout.write(`split generate ${output} items=${dataset.items} ${sizes}\n`);
});
