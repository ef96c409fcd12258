import { html, type Html } from './html.js';
import type { GenerationReport, PlotPoint } from './report-model.js';

// The Pareto front of one generation as inline SVG: every test point, the front as a step line,
// the champion; x = Fail->Pass count, y = Pass->Fail count (both: fewer is better).

const WIDTH = 800;
const HEIGHT = 420;
const PLOT = { left: 64, top: 16, right: 560, bottom: 364 };

/** Round, readable tick values from 0 to at least `max` (steps of 1, 2 or 5 times a power of ten). */
export function niceTicks(max: number, target = 6): number[] {
  const top = Math.max(1, max);
  const rough = top / target;
  const power = 10 ** Math.floor(Math.log10(rough));
  const step = Math.max(1, [1, 2, 5, 10].map((m) => m * power).find((candidate) => candidate >= rough) ?? 10 * power);
  const ticks: number[] = [];
  for (let value = 0; value < top + step; value += step) {
    ticks.push(value);
    if (value >= top) break;
  }
  return ticks;
}

const fixed = (value: number): string => value.toFixed(1);

function pointTitle(point: PlotPoint): string {
  const { f2p, failCount, p2f, passCount } = point.counts;
  return `${point.runId} ${point.checkpointName}: Fail->Pass ${f2p}/${failCount}, Pass->Fail ${p2f}/${passCount}`;
}

/** The front as a staircase: right along a member's Pass->Fail level, then down to the next member. */
export function stepPath(
  front: readonly PlotPoint[],
  x: (value: number) => number,
  y: (value: number) => number,
): string {
  const corners = [
    ...new Map(front.map((point) => [`${point.counts.f2p}/${point.counts.p2f}`, point.counts])).values(),
  ].sort((a, b) => a.f2p - b.f2p || b.p2f - a.p2f);
  return corners
    .map((counts, index) =>
      index === 0
        ? `M${fixed(x(counts.f2p))},${fixed(y(counts.p2f))}`
        : `H${fixed(x(counts.f2p))}V${fixed(y(counts.p2f))}`,
    )
    .join('');
}

/** The generation's plot, or null when it has no test evaluation yet. */
export function frontPlot(report: GenerationReport, compared: 'result' | 'decided'): Html | null {
  if (report.points.length === 0) return null;
  const plotted = [...report.points, ...report.front, ...(report.champion ? [report.champion] : [])];
  // One count of headroom keeps the largest point off the plot's edge.
  const xTicks = niceTicks(Math.max(...plotted.map((point) => point.counts.f2p)) + 1);
  const yTicks = niceTicks(Math.max(...plotted.map((point) => point.counts.p2f)) + 1);
  const xMax = xTicks[xTicks.length - 1] ?? 1;
  const yMax = yTicks[yTicks.length - 1] ?? 1;
  const x = (value: number): number => PLOT.left + (value / xMax) * (PLOT.right - PLOT.left);
  const y = (value: number): number => PLOT.bottom - (value / yMax) * (PLOT.bottom - PLOT.top);
  const at = (point: PlotPoint): Html => html`cx="${fixed(x(point.counts.f2p))}" cy="${fixed(y(point.counts.p2f))}"`;
  const counts = compared === 'decided' ? ' (decided)' : '';
  // Grid, ticks and tick labels.
  const xAxis = xTicks.map((tick) => [
    html`<line class="grid" x1="${fixed(x(tick))}" y1="${PLOT.top}" x2="${fixed(x(tick))}" y2="${PLOT.bottom}"/>`,
    html`<line class="tick" x1="${fixed(x(tick))}" y1="${PLOT.bottom}" x2="${fixed(x(tick))}" y2="${PLOT.bottom + 5}"/>`,
    html`<text class="tick-label x" x="${fixed(x(tick))}" y="${PLOT.bottom + 18}" text-anchor="middle">${tick}</text>`,
  ]);
  const yAxis = yTicks.map((tick) => [
    html`<line class="grid" x1="${PLOT.left}" y1="${fixed(y(tick))}" x2="${PLOT.right}" y2="${fixed(y(tick))}"/>`,
    html`<line class="tick" x1="${PLOT.left - 5}" y1="${fixed(y(tick))}" x2="${PLOT.left}" y2="${fixed(y(tick))}"/>`,
    html`<text class="tick-label y" x="${PLOT.left - 8}" y="${fixed(y(tick) + 4)}" text-anchor="end">${tick}</text>`,
  ]);
  const axes = [
    html`<g class="axes">`,
    xAxis,
    yAxis,
    html`<line class="axis" x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}"/>`,
    html`<line class="axis" x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}"/>`,
    html`<text class="axis-label" x="${(PLOT.left + PLOT.right) / 2}" y="${HEIGHT - 12}" text-anchor="middle">Fail-&gt;Pass count${counts} (failing items let through)</text>`,
    html`<text class="axis-label" transform="translate(16 ${(PLOT.top + PLOT.bottom) / 2}) rotate(-90)" text-anchor="middle">Pass-&gt;Fail count${counts} (passing items rejected)</text>`,
    html`</g>`,
  ];
  const points = report.points.map(
    (point) => html`<circle class="point" ${at(point)} r="4"><title>${pointTitle(point)}</title></circle>`,
  );
  const front =
    report.front.length === 0
      ? []
      : [
          html`<path class="front-line" d="${stepPath(report.front, x, y)}"/>`,
          html`<g class="front-members">`,
          report.front.map(
            (point) =>
              html`<circle class="front-member" ${at(point)} r="6"><title>front: ${pointTitle(point)}</title></circle>`,
          ),
          html`</g>`,
        ];
  const champion = report.champion
    ? championMark(report.champion, x(report.champion.counts.f2p), y(report.champion.counts.p2f))
    : '';
  return html`${[
    html`<svg class="front-plot" viewBox="0 0 ${WIDTH} ${HEIGHT}" width="${WIDTH}" height="${HEIGHT}" role="img" data-generation="${report.generation}" data-points="${report.points.length}" data-front="${report.front.length}">`,
    html`<title>Generation ${report.generation}: ${report.points.length} test evaluations, Pareto front of ${report.front.length}</title>`,
    axes,
    html`<g class="points">${points}</g>`,
    front,
    champion,
    legend(PLOT.right + 24, PLOT.top + 8),
    html`</svg>`,
  ]}`;
}

function championMark(champion: PlotPoint, cx: number, cy: number): Html {
  const d = `M${fixed(cx)},${fixed(cy - 9)}L${fixed(cx + 9)},${fixed(cy)}L${fixed(cx)},${fixed(cy + 9)}L${fixed(cx - 9)},${fixed(cy)}Z`;
  return html`<path class="champion" d="${d}"><title>champion: ${pointTitle(champion)}</title></path>`;
}

function legend(left: number, top: number): Html {
  const row = (index: number, symbol: Html, label: string): Html =>
    html`<g transform="translate(${left} ${top + index * 24})">${symbol}<text x="26" y="4">${label}</text></g>`;
  return html`<g class="legend">${[
    row(0, html`<circle class="point-key" cx="8" cy="0" r="4"/>`, 'test evaluation (a checkpoint)'),
    row(1, html`<circle class="front-member-key" cx="8" cy="0" r="6"/>`, 'Pareto front member'),
    row(2, html`<path class="front-line-key" d="M-1,-6H9V6H18"/>`, 'Pareto front'),
    row(3, html`<path class="champion-key" d="M8,-9L17,0L8,9L-1,0Z"/>`, 'champion'),
  ]}</g>`;
}
