// `npm run sim:selection`: the champion rules side by side in a synthetic world, many seeds.
// Prints a table and writes bench/results/selection.json (every generation's figures beside it,
// in selection.details.json). Runs the loop's own rule code (src/rules); see
// docs/champion-rules.md for what the figures mean.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { selectionPage } from '../src/client/report/selection-plot.js';
import { writeResults } from './lib/results-file.js';
import { RULES } from './selection/rules.js';
import { simulate, type SimulationOptions } from './selection/simulate.js';
import { aim, estimate, renderSelectionTable, summarize } from './selection/summary.js';

const number = (value: string): number => {
  const parsed = Number(value);
  if (!Number.isFinite(parsed)) {
    throw new Error(`not a number: ${value}`);
  }
  return parsed;
};
const whole = (value: string): number => {
  const parsed = number(value);
  if (!Number.isInteger(parsed) || parsed < 1) {
    throw new Error(`not a whole number of 1 or more: ${value}`);
  }
  return parsed;
};

const program = new Command('sim:selection')
  .description('Champion rules (dominance, paired, ladder, Thresholdout-style) side by side on synthetic generations')
  .addOption(new Option('--seeds <n>', 'generations simulated per rule').default(200).argParser(whole))
  .addOption(new Option('--first-seed <n>', 'seed of the first generation').default(1).argParser(whole))
  .addOption(new Option('--test-items <n>', 'items in the working test set').default(2000).argParser(whole))
  .addOption(
    new Option('--validation-items <n>', "items in the validation set (Thresholdout's estimate)")
      .default(2000)
      .argParser(whole),
  )
  .addOption(new Option('--reserve-items <n>', 'items in the reserve set').default(2000).argParser(whole))
  .addOption(
    new Option('--evaluations <n>', 'evaluations (scored checkpoints) per generation').default(300).argParser(whole),
  )
  .addOption(new Option('--fail-fraction <x>', 'share of items that should fail').default(0.3).argParser(number))
  .addOption(new Option('--f2p-rate <x>', 'mean true Fail->Pass rate of a candidate').default(0.1).argParser(number))
  .addOption(new Option('--p2f-rate <x>', 'mean true Pass->Fail rate of a candidate').default(0.05).argParser(number))
  .addOption(new Option('--spread <x>', "candidates' spread of ability, in logits").default(0.15).argParser(number))
  .addOption(
    new Option('--difficulty <x>', "weight of items' shared difficulty, in logits").default(1.5).argParser(number),
  )
  .addOption(new Option('--alpha <x>', "the paired rule's family-wise alpha").default(0.05).argParser(number))
  .addOption(
    new Option('--ladder-margin <x>', 'items (>= 1) or a fraction of the class (< 1)').default(0.01).argParser(number),
  )
  .addOption(new Option('--threshold <x>', "Thresholdout's threshold, as a rate").default(0.01).argParser(number))
  .addOption(new Option('--sigma <x>', "Thresholdout's noise scale, as a rate").default(0.005).argParser(number))
  .addOption(new Option('--out <file>', 'results file').default(path.join('bench', 'results', 'selection.json')));

program.parse();
const raw = program.opts<SimulationOptions & { out: string }>();
const { out, ...options } = raw;

const began = Date.now();
const results = simulate(options);
const summaries = summarize(results);
const table = renderSelectionTable(summaries);
console.log(
  `${options.seeds} generations of ${options.evaluations} evaluations; test ${options.testItems}, reserve ${options.reserveItems} items; ` +
    `paired alpha ${options.alpha}, ladder margin ${options.ladderMargin}`,
);
console.log(table);
const aims = Object.fromEntries(
  RULES.filter((rule) => rule !== 'dominance').map((rule) => [rule, aim(summaries[rule], summaries.dominance)]),
);
const detectable = (
  pick: (r: (typeof results)[number]) => number | null,
): ReturnType<typeof estimate> & { undetectable: number } => {
  const values = results.map(pick);
  const seen = values.filter((value): value is number => value !== null);
  return { ...estimate(seen), undetectable: values.length - seen.length };
};
const reservePower = {
  f2p: detectable((r) => r.reserveDetectable.f2p),
  p2f: detectable((r) => r.reserveDetectable.p2f),
};
console.log(
  `reserve check (dominance champion): detects with 80% power a Fail->Pass rise of ${(reservePower.f2p.mean * 100).toFixed(1)} pts, ` +
    `a Pass->Fail rise of ${(reservePower.p2f.mean * 100).toFixed(1)} pts`,
);
// Every generation's figures go to the details file beside `out`, which is not committed.
const details = await writeResults(
  out,
  { options, seconds: (Date.now() - began) / 1000, summaries, aims, reservePower },
  { generations: results },
);
const page = out.replace(/\.json$/, '') + '.html';
const points = RULES.map((rule) => ({
  rule,
  promotions: summaries[rule].promotions.mean,
  optimism: summaries[rule].optimism.mean,
  regret: summaries[rule].regret.mean,
  reserveFailed: summaries[rule].reserveFailed.mean,
}));
await writeFile(
  page,
  selectionPage(
    points,
    `${options.seeds} generations of ${options.evaluations} evaluations; test ${options.testItems}, reserve ${options.reserveItems} items; paired alpha ${options.alpha}, ladder margin ${options.ladderMargin}`,
  ),
);
console.log(`wrote ${out}, ${details} and ${page} in ${((Date.now() - began) / 1000).toFixed(1)} s`);
