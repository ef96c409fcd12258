import { beforeAll, describe, expect, it } from 'vitest';
import { LOOP_METRICS } from '../../src/metrics/loop-metric-catalogue.js';
import { expressionsOf, metricNamesIn, readDashboard, type Dashboard } from './dashboard-names.js';

// examples/grafana/champion-loop.json reads only metrics the orchestrator exports. (The SDK's
// `temporal_*` names it reads are checked against a live scrape in loop-metrics.test.ts.)

describe('the Grafana dashboard', () => {
  let dashboard: Dashboard;

  beforeAll(async () => {
    dashboard = await readDashboard();
  });

  it("reads only the loop's metrics that exist, each by its loop variable", () => {
    const expressions = expressionsOf(dashboard);
    expect(expressions.length).toBeGreaterThan(20);
    const ours = new Set(expressions.flatMap(metricNamesIn).filter((name) => name.startsWith('champion_loop_')));
    expect(ours.size).toBeGreaterThan(20);
    for (const name of ours) expect(Object.keys(LOOP_METRICS), name).toContain(name);
    for (const expression of expressions.filter(
      (text) => text.includes('champion_loop_') && !text.startsWith('label_values'),
    ))
      for (const selector of expression.match(/champion_loop_[a-z_]+\{[^}]*\}/g) ?? [])
        expect(selector).toContain('loop=~"$loop"');
  });

  it("reads the SDK's own metrics too", () => {
    const sdk = expressionsOf(dashboard)
      .flatMap(metricNamesIn)
      .filter((name) => name.startsWith('temporal_'));
    expect(sdk.length).toBeGreaterThanOrEqual(3);
  });

  it('is a dashboard Grafana imports: unique panel ids, targets with refIds, a 24-column grid, a loop variable', () => {
    const ids = dashboard.panels.map((panel) => panel.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const panel of dashboard.panels) {
      expect(panel.gridPos.x + panel.gridPos.w).toBeLessThanOrEqual(24);
      if (panel.type === 'row') continue;
      expect(panel.targets?.length, panel.title).toBeGreaterThan(0);
      const refIds = (panel.targets ?? []).map((target) => target.refId);
      expect(new Set(refIds).size).toBe(refIds.length);
    }
    expect(dashboard.templating.list.map((variable) => variable.name)).toEqual(['datasource', 'loop']);
  });
});
