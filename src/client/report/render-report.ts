import type { LedgerRow } from '../../ledger/rows.js';
import type { StateJson } from '../../ledger/loop-state.js';
import { ALPHA } from '../../rules/constants.js';
import { describeReuseShort } from '../../rules/test-reuse.js';
import type { CompareKey } from '../../rules/types.js';
import { cardsSection } from './card-plot.js';
import { frontPlot } from './front-plot.js';
import { html, joinHtml, pValue, percent, raw, shortTime, type Html, type HtmlValue } from './html.js';
import {
  reportModel,
  type ChampionEntry,
  type ErrorCounts,
  type GenerationReport,
  type PlotPoint,
  type ReserveEntry,
} from './report-model.js';
import { REPORT_CSS } from './report-css.js';
import { dollars } from '../render-status.js';

// The report page: one self-contained HTML file (inline CSS and SVG, nothing fetched), pure.

export interface ReportOptions {
  readonly loopId: string;
  /** When the report was made (shown; the caller's clock, so rendering stays pure). */
  readonly generatedAt: Date;
  /** Which counts the loop compares on; `decided` for a loop with band decisions. */
  readonly compare?: CompareKey;
  /** The state the ledger folds to, for the summary at the top. */
  readonly state?: StateJson;
}

const counts = (value: ErrorCounts | null, which: 'f2p' | 'p2f'): Html => {
  if (value === null) return html`–`;
  return which === 'f2p'
    ? html`${value.f2p}/${value.failCount} (${percent(value.f2p, value.failCount)})`
    : html`${value.p2f}/${value.passCount} (${percent(value.p2f, value.passCount)})`;
};

const checkpoint = (name: string, epoch: number | null): Html =>
  html`${name}${epoch === null ? '' : html` <span class="muted">epoch ${epoch}</span>`}`;

const time = (iso: string): Html => html`<time>${shortTime(iso)}</time>`;

function table(head: readonly string[], rows: readonly HtmlValue[][], className: string): Html {
  return html`<table class="${className}"><thead><tr>${head.map((cell) => html`<th>${cell}</th>`)}</tr></thead><tbody>${rows.map(
    (cells) => html`<tr>${cells.map((cell) => html`<td>${cell}</td>`)}</tr>`,
  )}</tbody></table>`;
}

function frontTable(front: readonly PlotPoint[], champion: PlotPoint | null): Html {
  if (front.length === 0) return html`<p class="muted">No Pareto front yet.</p>`;
  const sorted = [...front].sort((a, b) => a.counts.f2p - b.counts.f2p || a.counts.p2f - b.counts.p2f);
  return table(
    ['run', 'checkpoint', 'Fail->Pass', 'Pass->Fail', ''],
    sorted.map((point) => [
      point.runId,
      checkpoint(point.checkpointName, point.epoch),
      counts(point.counts, 'f2p'),
      counts(point.counts, 'p2f'),
      champion?.key === point.key ? html`<span class="badge champion-badge">champion</span>` : '',
    ]),
    'front',
  );
}

function championTable(champions: readonly ChampionEntry[]): Html {
  if (champions.length === 0) return html`<p class="muted">No champion yet.</p>`;
  return table(
    ['time', 'run', 'checkpoint', 'Fail->Pass', 'Pass->Fail', 'decided by'],
    champions.map((entry) => [
      time(entry.time),
      entry.runId,
      checkpoint(entry.checkpointName, entry.epoch),
      counts(entry.counts, 'f2p'),
      counts(entry.counts, 'p2f'),
      entry.reason,
    ]),
    'champions',
  );
}

function verdict(entry: ReserveEntry): Html {
  if (entry.stale)
    return html`<span class="badge stale">stale</span> <span class="muted">the champion changed while it ran; changes nothing</span>`;
  switch (entry.verdict) {
    case 'pass':
      return html`<span class="badge pass">holds up</span>`;
    case 'fail':
      return html`<span class="badge fail">fails</span> <span class="muted">worse on reserve (p &lt; ${ALPHA})</span>`;
    default:
      return html`<span class="badge error">could not run</span>`;
  }
}

/** The least rise per class the check could see: a reserve set too small to see much says so. */
function detectable(entry: ReserveEntry): Html {
  const power = entry.power;
  if (power === null) return html`<span class="muted">-</span>`;
  const rise = (value: number | null): string => (value === null ? 'nothing' : `+${(value * 100).toFixed(1)} pts`);
  const warning = power.too_small ? html` <span class="badge fail">reserve too small</span>` : html``;
  return html`Fail->Pass ${rise(power.f2p_detectable)}, Pass->Fail ${rise(power.p2f_detectable)}${warning}`;
}

function reserveTable(checks: readonly ReserveEntry[]): Html {
  if (checks.length === 0) return html`<p class="muted">No reserve check in this generation.</p>`;
  return table(
    [
      'time',
      'champion',
      'after test evals',
      'Fail->Pass test',
      'reserve',
      'p',
      'Pass->Fail test',
      'reserve',
      'p',
      'verdict',
      'could detect (80% power)',
    ],
    checks.map((entry) => [
      time(entry.time),
      html`${entry.runId} ${entry.checkpointName}`,
      entry.testEvals,
      counts(entry.test, 'f2p'),
      counts(entry.reserve, 'f2p'),
      pValue(entry.f2pP),
      counts(entry.test, 'p2f'),
      counts(entry.reserve, 'p2f'),
      pValue(entry.p2fP),
      verdict(entry),
      detectable(entry),
    ]),
    'reserve-checks',
  );
}

function packagingTable(report: GenerationReport): Html {
  if (report.packages.length === 0) return html``;
  return html`<h3>Packaging</h3>${table(
    ['time', 'event', 'run', 'checkpoint', 'exit code'],
    report.packages.map((row) => [
      time(row.time),
      row.event,
      row.run_id,
      checkpoint(row.checkpoint_name, row.epoch),
      row.exit_code ?? row.error ?? '',
    ]),
    'packaging',
  )}`;
}

/**
 * GPU-hours of a generation's training runs, in all and per champion change, with what they cost
 * where the rows have a price; empty without GPU time.
 */
function gpuLine(report: GenerationReport): string {
  const { seconds, runs, usd, pricedRuns } = report.gpu;
  if (runs === 0) return '';
  const hours = (value: number) => `${(value / 3600).toFixed(2)} GPU-hours`;
  const priced = (share: number) => (pricedRuns > 0 ? ` (${dollars(usd / share)})` : '');
  const promotions = report.champions.length;
  const per =
    promotions > 0 ? `, ${hours(seconds / promotions)}${priced(promotions)} per champion change (${promotions})` : '';
  const unpriced = pricedRuns > 0 && pricedRuns < runs ? `; ${runs - pricedRuns} of them without a price` : '';
  return ` · training: ${hours(seconds)}${priced(1)} over ${runs} run${runs === 1 ? '' : 's'}${per}${unpriced}`;
}

function runsLine(runs: Readonly<Record<string, number>>): string {
  const parts = Object.entries(runs).map(([status, count]) => `${count} ${status.replace(/_/g, ' ')}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

/** The test set's reuse by the generation, and the reads its test_budget left unjudged; empty without a champion. */
function reuseLine(report: GenerationReport): Html | string {
  if (report.testReuse === null) return '';
  const past =
    report.readsPastBudget > 0
      ? ` · ${report.readsPastBudget} after the test budget was spent, which judged nothing (docs/behaviour.md 6.2)`
      : '';
  return html`<p class="meta test-reuse">test-set reuse: ${describeReuseShort(report.testReuse)}${past}</p>`;
}

function generationSection(report: GenerationReport, compare: CompareKey): Html {
  const opening = report.opening
    ? html`opened ${time(report.opening.started)} · reason <strong>${report.opening.reason}</strong> · split seed ${report.opening.split_seed}`
    : html`opening not in this ledger`;
  const plot = frontPlot(report, compare);
  const unplotted =
    report.unplotted > 0 ? ` (and ${report.unplotted} failed or without ${compare} counts, not plotted)` : '';
  return joinHtml(
    [
      html`<section class="generation" id="g${report.generation}" data-generation="${report.generation}">`,
      html`<h2>Generation ${report.generation}</h2>`,
      html`<p class="meta">${opening}<br>runs: ${runsLine(report.runs)}${gpuLine(report)} · test evaluations: ${report.points.length}${unplotted} · reserve checks: ${report.reserveChecks.length}</p>`,
      reuseLine(report),
      plot
        ? html`<figure>${plot}<figcaption>Every test evaluation of generation ${report.generation}; fewer errors lie toward the origin.</figcaption></figure>`
        : html`<p class="muted">No test evaluation yet.</p>`,
      html`<h3>Pareto front</h3>`,
      frontTable(report.front, report.champion),
      html`<h3>Champion timeline</h3>`,
      championTable(report.champions),
      html`<h3>Reserve checks</h3>`,
      reserveTable(report.reserveChecks),
      packagingTable(report),
      html`</section>`,
    ],
    '\n',
  );
}

function summary(options: ReportOptions, generations: readonly GenerationReport[], compare: CompareKey): Html {
  const state = options.state;
  const evals = generations.reduce((sum, report) => sum + report.points.length, 0);
  const now = state
    ? html` (now in generation ${state.generation}${state.advance_reason ? html`, advancing: ${state.advance_reason}` : ''})`
    : '';
  const items = [
    html`<li>generations: <strong>${generations.length}</strong>${now}</li>`,
    html`<li>test evaluations: <strong>${evals}</strong></li>`,
  ];
  if (state?.champion) {
    const result = state.champion.result;
    const both: ErrorCounts | null = result
      ? {
          f2p: result.fail_to_pass_count,
          failCount: result.fail_count,
          p2f: result.pass_to_fail_count,
          passCount: result.pass_count,
        }
      : null;
    const rates = (of: ErrorCounts | null) =>
      of ? html`Fail-&gt;Pass ${counts(of, 'f2p')} · Pass-&gt;Fail ${counts(of, 'p2f')}` : html`–`;
    // Under band decisions the champion was chosen on its decided counts (the plotted point's), the raw ones beside them.
    const key = `${state.champion.run_id}/${state.champion.checkpoint_name}`;
    const decided =
      compare === 'decided'
        ? ([...generations].reverse().find((report) => report.champion?.key === key)?.champion?.counts ?? null)
        : undefined;
    const shown =
      decided === undefined
        ? both
          ? html` · ${rates(both)}`
          : ''
        : html` · decided (after the reject band): ${rates(decided)} · raw: ${rates(both)}`;
    items.push(
      html`<li>champion: <strong>${state.champion.run_id} ${state.champion.checkpoint_name}</strong>${shown}</li>`,
    );
  }
  return html`<ul class="summary">${items}</ul>`;
}

/** The report of a loop's ledger rows as one HTML page (no network needed to open it). */
export function renderReport(rows: readonly LedgerRow[], options: ReportOptions): string {
  const compare =
    options.compare ??
    (rows.some((row) => row.type === 'reserve_check' && row.compared === 'decided') ? 'decided' : 'result');
  const model = reportModel(rows, compare);
  const newestFirst = [...model.generations].reverse();
  const nav = joinHtml(
    newestFirst.map((report) => html`<a href="#g${report.generation}">generation ${report.generation}</a>`),
    ' · ',
  );
  const compared = compare === 'decided' ? html`decided counts (band decisions)` : html`the reports' result counts`;
  return joinHtml(
    [
      html`<!doctype html>`,
      html`<html lang="en">`,
      html`<head>`,
      html`<meta charset="utf-8">`,
      html`<meta name="viewport" content="width=device-width, initial-scale=1">`,
      html`<title>${`champion loop ${options.loopId}: report`}</title>`,
      html`<style>${raw(REPORT_CSS)}</style>`,
      html`</head>`,
      html`<body>`,
      html`<header>`,
      html`<h1>Champion loop <code>${options.loopId}</code></h1>`,
      html`<p class="muted">From the loop's ledger (Temporal history) at ${time(options.generatedAt.toISOString())}; champions and fronts compared on ${compared}.</p>`,
      summary(options, model.generations, compare),
      newestFirst.length > 0 ? html`<nav>${nav}</nav>` : html`<p class="muted">The ledger has no rows yet.</p>`,
      html`</header>`,
      html`<main>`,
      cardsSection(rows),
      ...newestFirst.map((report) => generationSection(report, compare)),
      html`</main>`,
      html`</body>`,
      html`</html>`,
      '',
    ],
    '\n',
  ).toString();
}
