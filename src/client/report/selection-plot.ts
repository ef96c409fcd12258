import { html, joinHtml, raw, type Html } from './html.js';
import { REPORT_CSS } from './report-css.js';

// `npm run sim:selection`'s figures as a page of the report's kind: each champion rule a point,
// x = promotions per generation, y = optimism (points of error rate), both fewer is better; the
// label carries the true regret, which the rules trade the other two against.

/** One rule's means as the simulation measured them (error figures as rates). */
export interface SelectionPoint {
  readonly rule: string;
  readonly promotions: number;
  readonly optimism: number;
  readonly regret: number;
  readonly reserveFailed: number;
}

const WIDTH = 640;
const HEIGHT = 360;
const PLOT = { left: 64, top: 16, right: 600, bottom: 312 };

/** The rules as an inline SVG scatter, axes from 0 to a little above the largest value. */
function selectionPlot(points: readonly SelectionPoint[]): Html {
  const maxX = Math.max(1, ...points.map((point) => point.promotions)) * 1.15;
  const maxY = Math.max(0.001, ...points.map((point) => point.optimism)) * 1.15;
  const x = (value: number): number => PLOT.left + (value / maxX) * (PLOT.right - PLOT.left);
  const y = (value: number): number => PLOT.bottom - (value / maxY) * (PLOT.bottom - PLOT.top);
  const ticks = (max: number, count: number): number[] =>
    Array.from({ length: count + 1 }, (_, i) => (max * i) / count);
  const xTicks = ticks(maxX, 5).map(
    (value) =>
      html`<text x="${x(value).toFixed(1)}" y="${PLOT.bottom + 18}" text-anchor="middle">${value.toFixed(1)}</text>`,
  );
  const yTicks = ticks(maxY, 5).map(
    (value) =>
      html`<text x="${PLOT.left - 8}" y="${(y(value) + 4).toFixed(1)}" text-anchor="end">${(value * 100).toFixed(2)}</text>`,
  );
  const dots = points.map(
    (point) =>
      html`<g class="rule"><circle class="point" cx="${x(point.promotions).toFixed(1)}" cy="${y(point.optimism).toFixed(1)}" r="6"><title>${point.rule}: ${point.promotions.toFixed(2)} promotions per generation, optimism ${(point.optimism * 100).toFixed(2)} pts, true regret ${(point.regret * 100).toFixed(2)} pts, reserve check failed ${(point.reserveFailed * 100).toFixed(1)}%</title></circle><text x="${(x(point.promotions) + 10).toFixed(1)}" y="${(y(point.optimism) + 4).toFixed(1)}">${point.rule} (regret ${(point.regret * 100).toFixed(2)} pts)</text></g>`,
  );
  return html`<svg class="selection-plot" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="optimism against promotions per generation, one point per champion rule">
<line x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}" stroke="currentColor"/>
<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}" stroke="currentColor"/>
${joinHtml(xTicks, '\n')}
${joinHtml(yTicks, '\n')}
<text x="${(PLOT.left + PLOT.right) / 2}" y="${HEIGHT - 8}" text-anchor="middle">promotions per generation</text>
<text x="16" y="${(PLOT.top + PLOT.bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(PLOT.top + PLOT.bottom) / 2})">optimism (points of error rate)</text>
${joinHtml(dots, '\n')}
</svg>`;
}

/** A self-contained page: the plot and a line saying what was simulated. */
export function selectionPage(points: readonly SelectionPoint[], world: string): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Champion rules side by side</title><style>${raw(REPORT_CSS)}</style></head>
<body>
<h1>Champion rules side by side</h1>
<p class="meta">${world}</p>
${selectionPlot(points)}
</body>
</html>
`.toString();
}
