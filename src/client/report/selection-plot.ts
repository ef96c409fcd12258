import { html, joinHtml, raw, type Html } from './html.js';
import { REPORT_CSS } from './report-css.js';

// `npm run sim:selection`'s figures as a page of the report's kind: the trade-off curve of the
// champion rules. Two panels share the x axis, true regret (what a rule costs: how much worse its
// champion truly is than the best candidate it saw); the y axes are what it buys: optimism (points
// of error rate the champion's test counts flatter it by) and promotions per generation. Each rule
// at its chosen setting is a labelled point; a tunable rule at several settings is a line through
// its points, labelled with the setting at each end. Lower on both y axes at less regret is better.

/** One rule's means as the simulation measured them (error figures as rates). */
export interface SelectionPoint {
  readonly rule: string;
  readonly promotions: number;
  readonly optimism: number;
  readonly regret: number;
  readonly reserveFailed: number;
  /** Promotions per generation whose champion was not truly better than the one it replaced. */
  readonly falsePromotions?: number;
}

/** One tunable rule at several settings: its points in the order of the setting. */
export interface SelectionCurve {
  readonly rule: string;
  readonly points: readonly (SelectionPoint & { readonly setting: string })[];
}

const WIDTH = 640;
const HEIGHT = 300;
const PLOT = { left: 64, top: 16, right: 560, bottom: 252 };

interface Panel {
  readonly title: string;
  readonly y: (point: SelectionPoint) => number;
  readonly tick: (value: number) => string;
}

const PANELS: readonly Panel[] = [
  { title: 'optimism (points of error rate)', y: (point) => point.optimism, tick: (v) => (v * 100).toFixed(2) },
  { title: 'promotions per generation', y: (point) => point.promotions, tick: (v) => v.toFixed(1) },
];

const describe = (point: SelectionPoint, name: string): string =>
  `${name}: ${point.promotions.toFixed(2)} promotions per generation${point.falsePromotions === undefined ? '' : ` (${point.falsePromotions.toFixed(2)} false)`}, optimism ${(point.optimism * 100).toFixed(2)} pts, true regret ${(point.regret * 100).toFixed(2)} pts, reserve check failed ${(point.reserveFailed * 100).toFixed(1)}%`;

/** One panel as an inline SVG: regret on x, the panel's figure on y, axes from 0 to a little above the largest value. */
function panelPlot(panel: Panel, points: readonly SelectionPoint[], curves: readonly SelectionCurve[]): Html {
  const all = [...points, ...curves.flatMap((curve) => curve.points)];
  const maxX = Math.max(0.001, ...all.map((point) => point.regret)) * 1.15;
  const maxY = Math.max(0.001, ...all.map(panel.y)) * 1.15;
  const x = (point: SelectionPoint): string =>
    (PLOT.left + (point.regret / maxX) * (PLOT.right - PLOT.left)).toFixed(1);
  const y = (point: SelectionPoint): string =>
    (PLOT.bottom - (panel.y(point) / maxY) * (PLOT.bottom - PLOT.top)).toFixed(1);
  const ticks = (max: number): number[] => Array.from({ length: 6 }, (_, i) => (max * i) / 5);
  const xTicks = ticks(maxX).map(
    (value) =>
      html`<text x="${(PLOT.left + (value / maxX) * (PLOT.right - PLOT.left)).toFixed(1)}" y="${PLOT.bottom + 18}" text-anchor="middle">${(value * 100).toFixed(2)}</text>`,
  );
  const yTicks = ticks(maxY).map(
    (value) =>
      html`<text x="${PLOT.left - 8}" y="${(PLOT.bottom - (value / maxY) * (PLOT.bottom - PLOT.top) + 4).toFixed(1)}" text-anchor="end">${panel.tick(value)}</text>`,
  );
  const lines = curves.map((curve) => {
    const path = curve.points.map((point) => `${x(point)},${y(point)}`).join(' ');
    const dots = curve.points.map(
      (point) =>
        html`<circle class="curve-point" cx="${x(point)}" cy="${y(point)}" r="3"><title>${describe(point, `${curve.rule} ${point.setting}`)}</title></circle>`,
    );
    const first = curve.points[0];
    const last = curve.points.at(-1);
    const ends =
      first && last
        ? html`<text class="curve-end" x="${x(first)}" y="${(Number(y(first)) - 6).toFixed(1)}">${first.setting}</text><text class="curve-end" x="${x(last)}" y="${(Number(y(last)) - 6).toFixed(1)}">${curve.rule} ${last.setting}</text>`
        : '';
    return html`<g class="curve"><polyline points="${path}" fill="none" stroke="currentColor" stroke-opacity="0.45"/>${joinHtml(dots, '')}${ends}</g>`;
  });
  const dots = points.map(
    (point) =>
      html`<g class="rule"><circle class="point" cx="${x(point)}" cy="${y(point)}" r="6"><title>${describe(point, point.rule)}</title></circle><text x="${(Number(x(point)) + 9).toFixed(1)}" y="${(Number(y(point)) + 4).toFixed(1)}">${point.rule}</text></g>`,
  );
  return html`<svg class="selection-plot" viewBox="0 0 ${WIDTH} ${HEIGHT}" role="img" aria-label="${panel.title} against true regret, one point per champion rule, one line per tunable rule">
<line x1="${PLOT.left}" y1="${PLOT.bottom}" x2="${PLOT.right}" y2="${PLOT.bottom}" stroke="currentColor"/>
<line x1="${PLOT.left}" y1="${PLOT.top}" x2="${PLOT.left}" y2="${PLOT.bottom}" stroke="currentColor"/>
${joinHtml(xTicks, '\n')}
${joinHtml(yTicks, '\n')}
<text x="${(PLOT.left + PLOT.right) / 2}" y="${HEIGHT - 8}" text-anchor="middle">true regret (points of error rate)</text>
<text x="16" y="${(PLOT.top + PLOT.bottom) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(PLOT.top + PLOT.bottom) / 2})">${panel.title}</text>
${joinHtml(lines, '\n')}
${joinHtml(dots, '\n')}
</svg>`;
}

/** A self-contained page: a line saying what was simulated, then both panels of the trade-off curve. */
export function selectionPage(
  points: readonly SelectionPoint[],
  world: string,
  curves: readonly SelectionCurve[] = [],
): string {
  return html`<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><title>Champion rules: the trade-off curve</title><style>${raw(REPORT_CSS)}</style></head>
<body>
<h1>Champion rules: the trade-off curve</h1>
<p class="meta">${world}</p>
<p>Each point is a rule at its chosen setting; each line a tunable rule over its settings (hover for the figures). Lower is better on both panels; further left costs less true regret.</p>
${joinHtml(
  PANELS.map((panel) => panelPlot(panel, points, curves)),
  '\n',
)}
</body>
</html>
`.toString();
}
