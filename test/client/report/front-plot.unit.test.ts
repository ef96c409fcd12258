import { describe, expect, it } from 'vitest';
import { frontPlot, niceTicks, stepPath } from '../../../src/client/report/front-plot.js';
import { reportModel, type GenerationReport, type PlotPoint } from '../../../src/client/report/report-model.js';
import { seedLedgerRows } from './seed-ledger.js';

const point = (f2p: number, p2f: number, runId = `run-${f2p}-${p2f}`): PlotPoint => ({
  key: `${runId}/checkpoint-0001.pt`,
  runId,
  candidate: 'c',
  checkpointName: 'checkpoint-0001.pt',
  epoch: 1,
  counts: { f2p, failCount: 60, p2f, passCount: 240 },
  finished: '2026-01-05T08:00:00.000Z',
});

const count = (svg: string, pattern: RegExp): number => svg.match(pattern)?.length ?? 0;

describe('the Pareto front plot', () => {
  const [, second] = reportModel(seedLedgerRows(), 'result').generations;

  it('chooses round ticks that cover the largest count', () => {
    expect(niceTicks(0)).toEqual([0, 1]);
    expect(niceTicks(7)).toEqual([0, 2, 4, 6, 8]);
    expect(niceTicks(31)).toEqual([0, 10, 20, 30, 40]);
    expect(niceTicks(240)).toEqual([0, 50, 100, 150, 200, 250]);
    for (const max of [1, 3, 9, 13, 99, 101, 1234]) {
      const ticks = niceTicks(max);
      expect(ticks[0]).toBe(0);
      expect(ticks[ticks.length - 1]).toBeGreaterThanOrEqual(max);
      expect(ticks.every((tick) => Number.isInteger(tick))).toBe(true);
    }
  });

  it('draws the front as a staircase sorted by Fail->Pass, one corner per distinct pair of counts', () => {
    const identity = (value: number) => value;
    expect(stepPath([point(6, 21), point(4, 35), point(4, 35, 'tie')], identity, identity)).toBe('M4.0,35.0H6.0V21.0');
    expect(stepPath([point(3, 3)], identity, identity)).toBe('M3.0,3.0');
  });

  it('has one point per test evaluation, a marker per front member, the champion, axes with labels and a legend', () => {
    const svg = String(frontPlot(second as GenerationReport, 'result') ?? '');
    expect(svg.startsWith('<svg class="front-plot"')).toBe(true);
    expect(count(svg, /<circle class="point"/g)).toBe(4);
    expect(count(svg, /<circle class="front-member"/g)).toBe(2);
    expect(count(svg, /<path class="champion"/g)).toBe(1);
    expect(count(svg, /<path class="front-line" d="M[^"]*H[^"]*V/g)).toBe(1);
    expect(svg).toContain('Fail-&gt;Pass count (failing items let through)');
    expect(svg).toContain('Pass-&gt;Fail count (passing items rejected)');
    expect(count(svg, /class="tick-label x"/g)).toBeGreaterThanOrEqual(3);
    expect(count(svg, /class="tick-label y"/g)).toBeGreaterThanOrEqual(3);
    expect(svg).toContain('<g class="legend">');
    expect(svg).toContain('data-points="4"');
  });

  it('places fewer errors toward the origin: the champion lies left of and below a point it dominates', () => {
    const svg = String(frontPlot(second as GenerationReport, 'result') ?? '');
    const centre = (run: string) => {
      const match = new RegExp(
        `<circle class="point" cx="([\\d.]+)" cy="([\\d.]+)" r="4"><title>${run} checkpoint-0002.pt`,
      ).exec(svg);
      return { x: Number(match?.[1]), y: Number(match?.[2]) };
    };
    const champion = centre('champ-g002-r0001-wide');
    const dominated = centre('champ-g002-r0001-base');
    expect(champion.x).toBeLessThan(dominated.x);
    // SVG y grows downward: fewer Pass->Fail is further down.
    expect(champion.y).toBeGreaterThan(dominated.y);
  });

  it('escapes run and checkpoint names in the tooltips', () => {
    const report: GenerationReport = {
      ...(second as GenerationReport),
      points: [point(1, 2, '<img src=x onerror=alert(1)>')],
      front: [],
      champion: null,
    };
    const svg = String(frontPlot(report, 'decided') ?? '');
    expect(svg).not.toContain('<img');
    expect(svg).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(svg).toContain('Fail-&gt;Pass count (decided)');
  });

  it('draws nothing for a generation without test evaluations', () => {
    expect(frontPlot({ ...(second as GenerationReport), points: [] }, 'result')).toBeNull();
  });
});
