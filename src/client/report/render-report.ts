import type { LedgerRow } from '../../ledger/rows.js';
import type { StateJson } from '../../ledger/loop-state.js';
import { ALPHA } from '../../rules/constants.js';
import type { CompareKey } from '../../rules/types.js';
import { frontPlot } from './front-plot.js';
import { escapeHtml as e, pValue, percent, shortTime } from './html.js';
import { reportModel, type ChampionEntry, type ErrorCounts, type GenerationReport, type PlotPoint, type ReserveEntry } from './report-model.js';
import { REPORT_CSS } from './report-css.js';

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

const counts = (value: ErrorCounts | null, which: 'f2p' | 'p2f'): string => {
  if (value === null) return '–';
  return which === 'f2p' ? `${e(value.f2p)}/${e(value.failCount)} (${percent(value.f2p, value.failCount)})` : `${e(value.p2f)}/${e(value.passCount)} (${percent(value.p2f, value.passCount)})`;
};

const checkpoint = (name: string, epoch: number | null): string => `${e(name)}${epoch === null ? '' : ` <span class="muted">epoch ${epoch}</span>`}`;

function table(head: readonly string[], rows: readonly string[][], className: string): string {
  return [
    `<table class="${className}"><thead><tr>${head.map((cell) => `<th>${e(cell)}</th>`).join('')}</tr></thead><tbody>`,
    ...rows.map((cells) => `<tr>${cells.map((cell) => `<td>${cell}</td>`).join('')}</tr>`),
    '</tbody></table>',
  ].join('');
}

function frontTable(front: readonly PlotPoint[], champion: PlotPoint | null): string {
  if (front.length === 0) return '<p class="muted">No Pareto front yet.</p>';
  const sorted = [...front].sort((a, b) => a.counts.f2p - b.counts.f2p || a.counts.p2f - b.counts.p2f);
  return table(
    ['run', 'checkpoint', 'Fail->Pass', 'Pass->Fail', ''],
    sorted.map((point) => [
      e(point.runId),
      checkpoint(point.checkpointName, point.epoch),
      counts(point.counts, 'f2p'),
      counts(point.counts, 'p2f'),
      champion?.key === point.key ? '<span class="badge champion-badge">champion</span>' : '',
    ]),
    'front',
  );
}

function championTable(champions: readonly ChampionEntry[]): string {
  if (champions.length === 0) return '<p class="muted">No champion yet.</p>';
  return table(
    ['time', 'run', 'checkpoint', 'Fail->Pass', 'Pass->Fail'],
    champions.map((entry) => [`<time>${e(shortTime(entry.time))}</time>`, e(entry.runId), checkpoint(entry.checkpointName, entry.epoch), counts(entry.counts, 'f2p'), counts(entry.counts, 'p2f')]),
    'champions',
  );
}

function verdict(entry: ReserveEntry): string {
  if (entry.stale) return '<span class="badge stale">stale</span> <span class="muted">the champion changed while it ran; changes nothing</span>';
  switch (entry.verdict) {
    case 'pass':
      return '<span class="badge pass">holds up</span>';
    case 'fail':
      return `<span class="badge fail">fails</span> <span class="muted">worse on reserve (p &lt; ${ALPHA})</span>`;
    default:
      return '<span class="badge error">could not run</span>';
  }
}

function reserveTable(checks: readonly ReserveEntry[]): string {
  if (checks.length === 0) return '<p class="muted">No reserve check in this generation.</p>';
  return table(
    ['time', 'champion', 'after test evals', 'Fail->Pass test', 'reserve', 'p', 'Pass->Fail test', 'reserve', 'p', 'verdict'],
    checks.map((entry) => [
      `<time>${e(shortTime(entry.time))}</time>`,
      `${e(entry.runId)} ${e(entry.checkpointName)}`,
      e(entry.testEvals),
      counts(entry.test, 'f2p'),
      counts(entry.reserve, 'f2p'),
      pValue(entry.f2pP),
      counts(entry.test, 'p2f'),
      counts(entry.reserve, 'p2f'),
      pValue(entry.p2fP),
      verdict(entry),
    ]),
    'reserve-checks',
  );
}

function packagingTable(report: GenerationReport): string {
  if (report.packages.length === 0) return '';
  return `<h3>Packaging</h3>${table(
    ['time', 'event', 'run', 'checkpoint', 'exit code'],
    report.packages.map((row) => [
      `<time>${e(shortTime(row.time))}</time>`,
      e(row.event),
      e(row.run_id),
      checkpoint(row.checkpoint_name, row.epoch),
      e(row.exit_code ?? row.error ?? ''),
    ]),
    'packaging',
  )}`;
}

function runsLine(runs: Readonly<Record<string, number>>): string {
  const parts = Object.entries(runs).map(([status, count]) => `${count} ${status.replace(/_/g, ' ')}`);
  return parts.length > 0 ? parts.join(', ') : 'none';
}

function generationSection(report: GenerationReport, compare: CompareKey): string {
  const opening = report.opening
    ? `opened <time>${e(shortTime(report.opening.started))}</time> · reason <strong>${e(report.opening.reason)}</strong> · split seed ${e(report.opening.split_seed)}`
    : 'opening not in this ledger';
  const plot = frontPlot(report, compare);
  return [
    `<section class="generation" id="g${e(report.generation)}" data-generation="${e(report.generation)}">`,
    `<h2>Generation ${e(report.generation)}</h2>`,
    `<p class="meta">${opening}<br>runs: ${e(runsLine(report.runs))} · test evaluations: ${report.points.length}${report.unplotted > 0 ? ` (and ${report.unplotted} failed or without ${compare} counts, not plotted)` : ''} · reserve checks: ${report.reserveChecks.length}</p>`,
    plot ? `<figure>${plot}<figcaption>Every test evaluation of generation ${e(report.generation)}; fewer errors lie toward the origin.</figcaption></figure>` : '<p class="muted">No test evaluation yet.</p>',
    '<h3>Pareto front</h3>',
    frontTable(report.front, report.champion),
    '<h3>Champion timeline</h3>',
    championTable(report.champions),
    '<h3>Reserve checks</h3>',
    reserveTable(report.reserveChecks),
    packagingTable(report),
    '</section>',
  ].join('\n');
}

function summary(options: ReportOptions, generations: readonly GenerationReport[]): string {
  const state = options.state;
  const evals = generations.reduce((sum, report) => sum + report.points.length, 0);
  const items = [
    `<li>generations: <strong>${generations.length}</strong>${state ? ` (now in generation ${e(state.generation)}${state.advance_reason ? `, advancing: ${e(state.advance_reason)}` : ''})` : ''}</li>`,
    `<li>test evaluations: <strong>${evals}</strong></li>`,
  ];
  if (state?.champion) {
    const result = state.champion.result;
    const both: ErrorCounts | null = result
      ? { f2p: result.fail_to_pass_count, failCount: result.fail_count, p2f: result.pass_to_fail_count, passCount: result.pass_count }
      : null;
    items.push(
      `<li>champion: <strong>${e(state.champion.run_id)} ${e(state.champion.checkpoint_name)}</strong>${both ? ` · Fail-&gt;Pass ${counts(both, 'f2p')} · Pass-&gt;Fail ${counts(both, 'p2f')}` : ''}</li>`,
    );
  }
  return `<ul class="summary">${items.join('')}</ul>`;
}

/** The report of a loop's ledger rows as one HTML page (no network needed to open it). */
export function renderReport(rows: readonly LedgerRow[], options: ReportOptions): string {
  const compare = options.compare ?? (rows.some((row) => row.type === 'reserve_check' && row.compared === 'decided') ? 'decided' : 'result');
  const model = reportModel(rows, compare);
  const newestFirst = [...model.generations].reverse();
  const nav = newestFirst.map((report) => `<a href="#g${e(report.generation)}">generation ${e(report.generation)}</a>`).join(' · ');
  return [
    '<!doctype html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<title>${e(`champion loop ${options.loopId}: report`)}</title>`,
    `<style>${REPORT_CSS}</style>`,
    '</head>',
    '<body>',
    '<header>',
    `<h1>Champion loop <code>${e(options.loopId)}</code></h1>`,
    `<p class="muted">From the loop's ledger (Temporal history) at <time>${e(shortTime(options.generatedAt.toISOString()))}</time>; champions and fronts compared on ${compare === 'decided' ? 'decided counts (band decisions)' : "the reports' result counts"}.</p>`,
    summary(options, model.generations),
    nav ? `<nav>${nav}</nav>` : '<p class="muted">The ledger has no rows yet.</p>',
    '</header>',
    '<main>',
    ...newestFirst.map((report) => generationSection(report, compare)),
    '</main>',
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
