// `npm run sim:selection`: the champion rules side by side in a synthetic world, many seeds.
// Prints a table and writes bench/results/selection.json (every generation's figures beside it,
// in selection.details.json). Runs the loop's own rule code (src/rules); see
// docs/champion-rules.md for what the figures mean.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Command, Option } from 'commander';
import { selectionPage } from '../src/client/report/selection-plot.js';
import { writeResults } from './lib/results-file.js';
import { CURVE, curveLabel } from './selection/curve.js';
import { RULES } from './selection/rules.js';
import { simulate, type SimulationOptions } from './selection/simulate.js';
import { aim, estimate, renderSelectionTable, summarize, summarizeCurve } from './selection/summary.js';

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
  .description(
    'Champion rules (dominance, paired, ladder, Thresholdout-style and five more) side by side on synthetic generations, and the trade-off curve of the tunable ones',
  )
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
    new Option('--confirmation-items <n>', "items kept apart from the reserve set for the 'confirmed' rule")
      .default(500)
      .argParser(whole),
  )
  .addOption(
    new Option('--budget-reads <n>', "the 'budget' rule's test_budget.reads (when_spent: freeze)")
      .default(100)
      .argParser(whole),
  )
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
const curve = summarizeCurve(results);
const world =
  `${options.seeds} generations of ${options.evaluations} evaluations; test ${options.testItems}, reserve ${options.reserveItems} ` +
  `(and ${options.confirmationItems} kept apart for confirmation) items; paired alpha ${options.alpha}, ladder margin ${options.ladderMargin}, ` +
  `budget ${options.budgetReads} reads`;
console.log(world);
console.log(renderSelectionTable(summaries, summaries.dominance));
console.log('\nthe trade-off curve: the tunable rules at several settings, over the same generations');
console.log(renderSelectionTable(curve, summaries.dominance, 'rule and setting'));
const aims = Object.fromEntries(
  RULES.filter((rule) => rule !== 'dominance').map((rule) => [rule, aim(summaries[rule], summaries.dominance)]),
);
const met = Object.entries(aims)
  .filter(([, verdict]) => verdict.met)
  .map(([rule]) => rule);
const metOnCurve = Object.entries(curve)
  .filter(([, summary]) => aim(summary, summaries.dominance).met)
  .map(([label]) => label);
console.log(
  `\naim (half the optimism, a third of the promotions, regret within 10% of dominance): ${
    met.length + metOnCurve.length === 0
      ? 'met by no rule and no point of the curve'
      : `met by ${[...met, ...metOnCurve].join(', ')}`
  }`,
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
const page = out.replace(/\.json$/, '') + '.html';
const details = await writeResults(
  out,
  { options, seconds: (Date.now() - began) / 1000, summaries, aims, curve, reservePower },
  { generations: results },
);
const pointOf = (rule: string, summary: (typeof summaries)['dominance']) => ({
  rule,
  promotions: summary.promotions.mean,
  falsePromotions: summary.falsePromotions.mean,
  optimism: summary.optimism.mean,
  regret: summary.regret.mean,
  reserveFailed: summary.reserveFailed.mean,
});
const points = RULES.map((rule) => pointOf(rule, summaries[rule]));
const curves = [...new Set(CURVE.map((point) => point.rule))].map((rule) => ({
  rule,
  points: CURVE.filter((point) => point.rule === rule).map((point) => ({
    ...pointOf(rule, curve[curveLabel(point)] as (typeof summaries)['dominance']),
    setting: `${point.setting}=${point.value}`,
  })),
}));
await writeFile(page, selectionPage(points, world, curves));
console.log(`wrote ${out}, ${details} and ${page} in ${((Date.now() - began) / 1000).toFixed(1)} s`);
