// Split the corpus (the data root's dataset.yaml says which part) into development and
// validation, seeded and per class.
import process from 'node:process';
import { CliArgs } from './lib/args.js';
import { runMain } from './lib/cli.js';
import { loadCorpus } from './lib/corpus.js';
import { readDatasetSpec } from './lib/dataset.js';
import { carve, writeSplit } from './lib/split.js';

await runMain('split-generate', async (argv) => {
  const args = new CliArgs(argv, { 'data-root': 'one', output: 'one', seed: 'one', 'validation-fraction': 'one' });
  const output = args.need('output');
  const seed = args.integer('seed');
  const fraction = args.number('validation-fraction');
  const dataset = await readDatasetSpec(args.need('data-root'));
  const ids = [...loadCorpus(dataset).keys()];
  const split = carve({ seed, dataset, roles: { development: ids } }, 'development', 'validation', fraction, seed);
  writeSplit(output, split);
  const sizes = `development=${split.roles.development?.length} validation=${split.roles.validation?.length}`;
  process.stdout.write(`split generate ${output} messages=${ids.length} ${sizes}\n`);
});
