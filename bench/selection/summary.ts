// What the selection simulation reports of many generations: per rule, means with 95% intervals,
// and whether each rule meets the aim against `dominance`. Pure.
import { RULES, type RuleName } from './rules.js';
import type { GenerationResult, Outcome } from './simulate.js';

export interface Estimate {
  readonly mean: number;
  /** Half-width of a normal 95% interval of the mean. */
  readonly ci95: number;
}

export interface RuleSummary {
  readonly optimism: Estimate;
  readonly reportedOptimism: Estimate;
  readonly promotions: Estimate;
  /** Promotions per generation whose new champion is not truly better than the one it replaced. */
  readonly falsePromotions: Estimate;
  readonly regret: Estimate;
  /** Share of generations whose champion failed its reserve check. */
  readonly reserveFailed: Estimate;
}

/** The aim, against dominance: half the optimism, a third of the promotions, regret within 10%. */
export interface Aim {
  readonly halfOptimism: boolean;
  readonly thirdPromotions: boolean;
  readonly regretWithin10: boolean;
  readonly met: boolean;
}

export function estimate(values: readonly number[]): Estimate {
  const n = values.length;
  if (n === 0) {
    return { mean: Number.NaN, ci95: Number.NaN };
  }
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const variance = n > 1 ? values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1) : 0;
  return { mean, ci95: (1.96 * Math.sqrt(variance)) / Math.sqrt(n) };
}

/** Means and intervals of one rule's (or curve point's) outcomes over the generations. */
function summarizeOutcomes(outcomes: readonly Outcome[]): RuleSummary {
  const pick = (field: (outcome: Outcome) => number): Estimate => estimate(outcomes.map(field));
  return {
    optimism: pick((o) => o.optimism),
    reportedOptimism: pick((o) => o.reportedOptimism),
    promotions: pick((o) => o.promotions),
    falsePromotions: pick((o) => o.falsePromotions),
    regret: pick((o) => o.regret),
    reserveFailed: pick((o) => (o.reserveFailed ? 1 : 0)),
  };
}

export function aim(rule: RuleSummary, dominance: RuleSummary): Aim {
  const halfOptimism = rule.optimism.mean <= dominance.optimism.mean / 2;
  const thirdPromotions = rule.promotions.mean <= dominance.promotions.mean / 3;
  const regretWithin10 = rule.regret.mean <= dominance.regret.mean * 1.1;
  return { halfOptimism, thirdPromotions, regretWithin10, met: halfOptimism && thirdPromotions && regretWithin10 };
}

export function summarize(results: readonly GenerationResult[]): Record<RuleName, RuleSummary> {
  return Object.fromEntries(
    RULES.map((rule) => [rule, summarizeOutcomes(results.map((result) => result.outcomes[rule]))]),
  ) as Record<RuleName, RuleSummary>;
}

/** The trade-off curve's points, by label, in the order curve.ts lists them. */
export function summarizeCurve(results: readonly GenerationResult[]): Record<string, RuleSummary> {
  const labels = Object.keys(results[0]?.curve ?? {});
  return Object.fromEntries(
    labels.map((label) => [label, summarizeOutcomes(results.map((result) => result.curve[label] as Outcome))]),
  );
}

const points = (value: Estimate): string => `${(value.mean * 100).toFixed(2)} ±${(value.ci95 * 100).toFixed(2)}`;
const plain = (value: Estimate): string => `${value.mean.toFixed(2)} ±${value.ci95.toFixed(2)}`;
const share = (value: Estimate): string => `${(value.mean * 100).toFixed(1)}%`;
const mark = (ok: boolean): string => (ok ? 'yes' : 'no');

/** The printed table: one line per rule (or curve point); error figures in points of error rate over all test items. */
export function renderSelectionTable(
  summaries: Readonly<Record<string, RuleSummary>>,
  dominance: RuleSummary,
  title = 'rule',
): string {
  const header = [
    title,
    'optimism (pts)',
    'reported opt. (pts)',
    'promotions/gen',
    'false promotions/gen',
    'true regret (pts)',
    'reserve failed',
    'aim: opt/2 promo/3 regret+10%',
  ];
  const rows = Object.entries(summaries).map(([name, summary]) => {
    const a = aim(summary, dominance);
    const verdict =
      summary === dominance
        ? '(baseline)'
        : `${mark(a.halfOptimism)} ${mark(a.thirdPromotions)} ${mark(a.regretWithin10)}: ${a.met ? 'MET' : 'missed'}`;
    return [
      name,
      points(summary.optimism),
      points(summary.reportedOptimism),
      plain(summary.promotions),
      plain(summary.falsePromotions),
      points(summary.regret),
      share(summary.reserveFailed),
      verdict,
    ];
  });
  const widths = header.map((heading, column) =>
    Math.max(heading.length, ...rows.map((row) => (row[column] as string).length)),
  );
  const line = (cells: readonly string[]): string =>
    cells.map((cell, column) => cell.padEnd(widths[column] as number)).join('  ');
  return [line(header), line(widths.map((width) => '-'.repeat(width))), ...rows.map(line)].join('\n');
}
