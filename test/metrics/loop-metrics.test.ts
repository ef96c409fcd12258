import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../../src/devserver/dev-server.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { championLoopCli } from '../helpers/loop-checks.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';
import { expressionsOf, metricNamesIn, readDashboard } from './dashboard-names.js';

// A real loop on a dev server, its orchestrator a `champion-loop worker orchestrator` process
// with CHAMPION_LOOP_METRICS_PORT: what Prometheus scrapes from it is what `status` prints.

const LOOP = 'metered';

interface Series {
  readonly name: string;
  readonly labels: Record<string, string>;
  readonly value: number;
}

/** The Prometheus text format's samples. */
function parseMetrics(text: string): Series[] {
  const series: Series[] = [];
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match) continue;
    const labels: Record<string, string> = {};
    for (const pair of (match[2] ?? '').matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g))
      labels[pair[1] as string] = pair[2] as string;
    series.push({ name: match[1] as string, labels, value: Number(match[3]) });
  }
  return series;
}

describe('the loop metrics of an orchestrator worker', () => {
  let loop: ProcessLoop;
  let port: number;

  beforeAll(async () => {
    port = await freePort();
    loop = await createProcessLoop({
      candidates: [
        { name: 'weak', overrides: { fixture_quality: 0.05 } },
        { name: 'strong', overrides: { fixture_quality: 0.95 } },
      ],
      lanes: 1,
      orchestratorEnv: { CHAMPION_LOOP_METRICS_PORT: String(port) },
    });
  }, 240_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  async function scrape(): Promise<{ text: string; series: Series[] }> {
    const text = await fetch(`http://127.0.0.1:${port}/metrics`).then((response) => response.text());
    return { text, series: parseMetrics(text) };
  }

  /** The value of one of the loop's series (labels beside `loop`), undefined when absent. */
  const valueOf = (series: readonly Series[], name: string, labels: Record<string, string> = {}) =>
    series.find(
      (s) =>
        s.name === name &&
        s.labels.loop === LOOP &&
        Object.entries(labels).every(([key, value]) => s.labels[key] === value) &&
        Object.keys(s.labels).length === Object.keys(labels).length + 1,
    )?.value;

  /** Scrape until `done` holds of the samples (the keeper passes every 2 s, the view every 5 s). */
  async function scrapeUntil(done: (series: Series[]) => boolean, what: string, timeoutMs = 60_000) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const scraped = await scrape();
      if (done(scraped.series)) return scraped;
      if (Date.now() > deadline)
        throw new Error(`no scrape showed ${what} within ${timeoutMs} ms; the last:\n${scraped.text}`);
      await new Promise((resolve) => setTimeout(resolve, 500));
    }
  }

  it("exports the champion's counts, front, jobs and lanes as `status` prints them, and the dashboard's every metric", async () => {
    await loop.startWith(LOOP, { saturation_evals: 3, max_reserve_checks: 5 });
    const lane = loop.laneQueue(0);

    // While it runs: its one lane busy with a training run, as the `state` view says.
    await scrapeUntil(
      (series) =>
        valueOf(series, 'champion_loop_lane_busy_ratio', { lane }) === 1 &&
        valueOf(series, 'champion_loop_lane_slots', { lane }) === 1 &&
        (valueOf(series, 'champion_loop_jobs_in_flight', { kind: 'run' }) ?? 0) >= 1,
      'the lane busy with a run',
    );

    await loop.waitFor(LOOP, (view) => view.reserve_checks >= 1 && view.champion !== null, 180_000);
    await loop.client.workflow.getHandle(loopWorkflowId(LOOP)).signal(stopSignal);
    const { view } = await loop.result(LOOP);
    const { rows } = await loop.ledger(LOOP);
    const champion = view.champion?.result;
    expect(champion).toBeTruthy();
    const count = (match: (row: LedgerRow) => boolean) => rows.filter(match).length;
    const lastCheck = rows.filter((row) => row.type === 'reserve_check' && !row.stale_champion).at(-1);
    expect(lastCheck?.type).toBe('reserve_check');

    // Once the stopped loop's last rows reached the copy, the figures are the final state's.
    const { text, series } = await scrapeUntil(
      (s) =>
        valueOf(s, 'champion_loop_champion_errors', { error: 'fail_to_pass' }) === champion?.fail_to_pass_count &&
        valueOf(s, 'champion_loop_champion_errors', { error: 'pass_to_fail' }) === champion?.pass_to_fail_count &&
        valueOf(s, 'champion_loop_pareto_set_members') === view.pareto_set.length &&
        valueOf(s, 'champion_loop_test_evals') === view.test_evals &&
        valueOf(s, 'champion_loop_reserve_checks') === view.reserve_checks &&
        valueOf(s, 'champion_loop_runs_total', { status: 'trained' }) ===
          count((row) => row.type === 'run' && row.status === 'trained') &&
        valueOf(s, 'champion_loop_jobs_in_flight', { kind: 'run' }) ===
          view.in_flight.filter((flight) => flight.kind === 'run').length,
      "the stopped loop's final state",
    );
    expect(valueOf(series, 'champion_loop_generation')).toBe(view.generation);
    expect(valueOf(series, 'champion_loop_test_evals_since_reserve_check')).toBe(view.tests_since_reserve_check);
    expect(valueOf(series, 'champion_loop_evals_total', { role: 'test', status: 'ok' })).toBe(
      count((row) => row.type === 'eval' && row.role === 'test' && row.status === 'ok'),
    );
    expect(valueOf(series, 'champion_loop_champions_total')).toBe(count((row) => row.type === 'champion'));
    expect(valueOf(series, 'champion_loop_champions_total')).toBeGreaterThanOrEqual(1);
    if (lastCheck?.type === 'reserve_check') {
      expect(
        valueOf(series, 'champion_loop_reserve_checks_total', { verdict: lastCheck.verdict }),
      ).toBeGreaterThanOrEqual(1);
      expect(valueOf(series, 'champion_loop_reserve_check_verdict', { verdict: lastCheck.verdict })).toBe(1);
      expect(valueOf(series, 'champion_loop_reserve_check_p_value', { direction: 'fail_to_pass' })).toBeCloseTo(
        lastCheck.f2p_p ?? NaN,
        12,
      );
      expect(valueOf(series, 'champion_loop_reserve_check_p_value', { direction: 'pass_to_fail' })).toBeCloseTo(
        lastCheck.p2f_p ?? NaN,
        12,
      );
    }

    // What `champion-loop status` prints of the stopped loop.
    const status = await championLoopCli(loop.server, ['status', LOOP]);
    expect(status.exitCode, status.stderr).toBe(0);
    const printed = /^champion: \S+ \S+(?: epoch=\d+)? f2p=(\d+)\/\d+ \([\d.]+%\) p2f=(\d+)\/\d+/m.exec(status.stdout);
    expect(printed, status.stdout).not.toBeNull();
    expect(valueOf(series, 'champion_loop_champion_errors', { error: 'fail_to_pass' })).toBe(Number(printed?.[1]));
    expect(valueOf(series, 'champion_loop_champion_errors', { error: 'pass_to_fail' })).toBe(Number(printed?.[2]));
    expect(status.stdout).toContain(`pareto set (${valueOf(series, 'champion_loop_pareto_set_members')}):`);
    expect(status.stdout).toContain(
      `test evals: ${valueOf(series, 'champion_loop_test_evals')}; since the last reserve check: ${valueOf(series, 'champion_loop_test_evals_since_reserve_check')}`,
    );

    // Every metric the Grafana dashboard reads is served (the SDK's included).
    const served = new Set([
      ...series.map((s) => s.name.replace(/_(bucket|sum|count)$/, '')),
      // The SDK serves a counter from its first event on: these count failures, and this loop had none.
      'temporal_workflow_task_execution_failed',
      'temporal_activity_execution_failed',
    ]);
    const read = new Set(expressionsOf(await readDashboard()).flatMap(metricNamesIn));
    for (const name of read) expect(served.has(name), `${name} is not served:\n${text}`).toBe(true);
  }, 300_000);
});
