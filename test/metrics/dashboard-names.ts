import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

const DASHBOARD_FILE = fileURLToPath(new URL('../../examples/grafana/champion-loop.json', import.meta.url));

/** What the tests read of a Grafana dashboard. */
export interface Dashboard {
  readonly panels: readonly {
    readonly id: number;
    readonly type: string;
    readonly title: string;
    readonly gridPos: { x: number; y: number; w: number; h: number };
    readonly targets?: readonly { refId: string; expr: string; datasource?: unknown }[];
  }[];
  readonly templating: { list: readonly { name: string; query?: unknown; definition?: string }[] };
}

export async function readDashboard(): Promise<Dashboard> {
  return JSON.parse(await readFile(DASHBOARD_FILE, 'utf8')) as Dashboard;
}

/** Every PromQL expression the dashboard runs: panel targets and variable queries. */
export function expressionsOf(dashboard: Dashboard): string[] {
  return [
    ...dashboard.panels.flatMap((panel) => (panel.targets ?? []).map((target) => target.expr)),
    ...dashboard.templating.list.flatMap((variable) => (variable.definition ? [variable.definition] : [])),
  ];
}

/** The metric names an expression reads (ours and the SDK's), histogram series as their metric's name. */
export function metricNamesIn(expression: string): string[] {
  const names = expression.match(/\b(?:champion_loop|temporal)_[a-z0-9_]+/g) ?? [];
  return [...new Set(names.map((name) => name.replace(/_(bucket|sum|count)$/, '')))];
}
