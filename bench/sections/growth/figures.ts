// The growth section's figures: each metric at each size, then its growth between the sizes, with
// a goal on that growth (linear or flat) where the metric has one. Pure.
import { figure, type Figure, type Goal } from '../../lib/figures.js';
import { describeGrowth, growthBetween, growthWords, type Growth } from '../../lib/growth-ratios.js';
import { BATCH, PASSES, type SizeResult } from './size-result.js';

interface Metric {
  readonly name: string;
  readonly unit: string;
  readonly value: (result: SizeResult) => number | null;
  /** What the figure measures (its note). */
  readonly what: string;
  /**
   * A goal on the growth between the two largest sizes: linear (no more than the sizes' ratio,
   * 10x from 5,000 to 50,000), flat (at most 2x: it costs what is new, not the ledger), or none.
   */
  readonly growthGoal: 'linear' | 'flat' | null;
  /** A goal on the figure at 50,000, or none. */
  readonly goalAtLargest?: Goal;
}

const METRICS: readonly Metric[] = [
  {
    name: '`champion-loop ledger --config --out`, end to end',
    unit: 'ms',
    value: (r) => r.cli.ledgerMs,
    what: 'a subprocess: the CLI starts, reads the copy, finds no history, folds the rows, writes ledger.jsonl and state.json',
    growthGoal: 'linear',
  },
  {
    name: 'ledger export in-process (exportLedger + the JSONL text)',
    unit: 'ms',
    value: (r) => r.inProcess.ledgerMs,
    what: 'the same work without the CLI start-up',
    growthGoal: 'linear',
  },
  {
    name: '`champion-loop report --config --out`, end to end',
    unit: 'ms',
    value: (r) => r.cli.reportMs,
    what: 'a subprocess: the export, then the HTML rendered and written',
    growthGoal: 'linear',
  },
  {
    name: 'report in-process (loopReport)',
    unit: 'ms',
    value: (r) => r.inProcess.reportMs,
    what: 'the same work without the CLI start-up',
    growthGoal: 'linear',
  },
  {
    name: 'report HTML size',
    unit: 'KiB',
    value: (r) => r.reportBytes / 1024,
    what: 'the self-contained file the report writes',
    growthGoal: 'linear',
  },
  {
    name: '`champion-loop status` of a stopped loop, end to end',
    unit: 'ms',
    value: (r) => r.cli.statusMs,
    what: 'a subprocess: describe, then the last state its newest run in history holds (the copy only once no run of it is left)',
    growthGoal: 'linear',
  },
  {
    name: 'status of a stopped loop in-process (loopState + lastLoopState + render)',
    unit: 'ms',
    value: (r) => r.inProcess.statusMs,
    what: "what `status` does without the CLI start-up (a running loop's status is a state query instead, whatever the ledger)",
    growthGoal: 'linear',
    goalAtLargest: { op: '<', value: 200 },
  },
  {
    name: 'keeper write cost per row (rows past the held ones + flushed append)',
    unit: 'ms',
    value: (r) => r.keeper.perRowMs,
    what: `a steady pass: ${BATCH} new rows past those the copy holds, appended with one fsync, median of ${PASSES}`,
    growthGoal: 'flat',
  },
  {
    name: "keeper's first pass over the loop (a worker's start)",
    unit: 'ms',
    value: (r) => r.keeper.startMs,
    what: 'in a fresh process: history read, the copy read whole and indexed, state.json written',
    growthGoal: 'linear',
  },
  {
    name: 'RSS a keeper process holds for the copy',
    unit: 'MiB',
    value: (r) => r.keeper.heldMiB,
    what: 'VmRSS after its passes minus before them, each after a full GC: the index (a digest per row) and what the heap kept',
    growthGoal: null,
  },
  {
    name: 'RSS of that keeper process',
    unit: 'MiB',
    value: (r) => r.keeper.rssAfterMiB,
    what: 'the whole process (node, tsx, the client) after its passes',
    growthGoal: null,
  },
  {
    name: 'ledger copy on disk',
    unit: 'MiB',
    value: (r) => r.copyBytes / 2 ** 20,
    what: 'ledger.jsonl in the state dir',
    growthGoal: null,
  },
];

/** The figures of a growth run: each metric per size, then its growth between sizes. Pure. */
export function growthFigures(
  results: readonly SizeResult[],
  startupMs: number,
): { figures: Figure[]; notes: string[] } {
  const figures: Figure[] = [
    figure(
      'growth',
      '`champion-loop --help`, end to end (the CLI start-up in every command below)',
      startupMs,
      'ms',
      null,
      'node, tsx and the modules; the end-to-end ratios include this fixed cost',
    ),
  ];
  const worse: string[] = [];
  for (const metric of METRICS) {
    const one = metricFigures(metric, results);
    figures.push(...one.figures);
    worse.push(...one.worse);
  }
  const notes =
    worse.length > 0
      ? [`growth: worse than linear (beyond 25% slack) in this run:\n  ${worse.join('\n  ')}`]
      : ['growth: every figure grew linearly or better between the sizes measured.'];
  return { figures, notes };
}

const n = (size: number) => size.toLocaleString('en-US');

/** One metric: its figure at each size, its growth between the two largest, and each step worse than linear. */
function metricFigures(metric: Metric, results: readonly SizeResult[]): { figures: Figure[]; worse: string[] } {
  const points = results
    .map((r) => ({ size: r.size, value: metric.value(r) }))
    .filter((p): p is { size: number; value: number } => p.value !== null && Number.isFinite(p.value));
  const growths: Growth[] = growthBetween(points);
  const largest = points[points.length - 1];
  const figures = points.map((point) => {
    const goal = point === largest ? (metric.goalAtLargest ?? null) : null;
    return figure('growth', `${metric.name} at ${n(point.size)} evals`, point.value, metric.unit, goal);
  });
  const last = growths[growths.length - 1];
  figures.push(
    figure(
      'growth',
      `${metric.name}: growth ${last ? `${n(last.from)} -> ${n(last.to)}` : ''}`,
      last?.ratio ?? null,
      'x',
      !last || metric.growthGoal === null
        ? null
        : { op: '<=', value: metric.growthGoal === 'flat' ? 2 : Number(last.sizeRatio.toFixed(2)) },
      `${describeGrowth(growths)}; ${metric.what}`,
    ),
  );
  const worse = growths
    .filter((g) => growthWords(g) === 'worse than linear')
    .map((g) => `${metric.name}: ${n(g.to)}/${n(g.from)} ${g.ratio.toFixed(2)}x for ${g.sizeRatio.toFixed(1)}x evals`);
  return { figures, worse };
}
