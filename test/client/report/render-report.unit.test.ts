import { describe, expect, it } from 'vitest';
import { renderReport } from '../../../src/client/report/render-report.js';
import { stateFromLedger } from '../../../src/ledger/from-ledger.js';
import { generationRow, initialLoopState, stateJson } from '../../../src/ledger/loop-state.js';
import { evalRowOf } from '../../helpers/eval-rows.js';
import { recordAll } from '../../helpers/record-rows.js';
import type { LedgerRow } from '../../../src/ledger/rows.js';
import { testReuse } from '../../../src/rules/test-reuse.js';
import type { HeldoutResult } from '../../../src/rules/types.js';
import { seedLedgerRows } from './seed-ledger.js';

const rows = seedLedgerRows();
const state = stateFromLedger(
  rows.map((row) => JSON.stringify(row)).join('\n'),
  'seed-ledger.jsonl',
  { mode: 'default', saturationEvals: 3, maxReserveChecks: 3 },
  'artifacts/champion-loop',
);
const html = renderReport(rows, { loopId: 'gate-2026', generatedAt: new Date('2026-01-06T00:00:00Z'), state });

/** The text of one generation's section. */
function section(generation: number): string {
  const start = html.indexOf(`<section class="generation" id="g${generation}"`);
  return html.slice(start, html.indexOf('</section>', start));
}

describe('the HTML report', () => {
  it('is one self-contained page: inline style and SVG, nothing to fetch', () => {
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html).toContain('<style>');
    expect(html).not.toMatch(/https?:|<link|<script|@import|url\(|src=/i);
  });

  it('shows the newest generation first, each with its plot, front, champion timeline and reserve checks', () => {
    expect(html.indexOf('id="g2"')).toBeLessThan(html.indexOf('id="g1"'));
    for (const generation of [1, 2]) {
      const text = section(generation);
      expect(text).toContain('<svg class="front-plot"');
      expect(text).toContain('<h3>Pareto front</h3>');
      expect(text).toContain('<h3>Champion timeline</h3>');
      expect(text).toContain('<h3>Reserve checks</h3>');
    }
    expect((html.match(/<circle class="point"/g) ?? []).length).toBe(7);
  });

  it('lists champions with time, run, checkpoint, counts and rates', () => {
    const timeline = section(1).split('<h3>Champion timeline</h3>')[1]?.split('<h3>')[0] ?? '';
    expect(timeline).toContain('2026-01-05 08:11:00Z');
    expect(timeline).toContain('champ-g001-r0001-base');
    expect(timeline).toContain('12/60 (20.00%)');
    expect(timeline).toContain('champ-g001-r0001-wide');
    expect(timeline).toContain('7/60 (11.67%)');
    expect(timeline).toContain('18/240 (7.50%)');
  });

  it('shows reserve checks with p-values and verdicts, a stale one as stale', () => {
    const failed = section(1).split('<h3>Reserve checks</h3>')[1] ?? '';
    expect(failed).toContain('0.0022');
    expect(failed).toContain('20/60 (33.33%)');
    expect(failed).toContain('>fails</span>');
    const stale = section(2).split('<h3>Reserve checks</h3>')[1] ?? '';
    expect(stale).toContain('>stale</span>');
    expect(stale).not.toContain('>holds up</span>');
  });

  it('says how each generation opened and sums up the state', () => {
    expect(section(2)).toContain('reason <strong>reserve_failed</strong>');
    expect(html).toContain('now in generation 2');
    expect(html).toContain('champ-g002-r0001-wide checkpoint-0002.pt');
    expect(section(1)).toContain('and 1 failed or without result counts');
  });

  it('says per generation how often it read its test set and how optimistic that may make the champion', () => {
    // Generation 1: 3 ok test evals (and a failed one, no read), champion 7/60 Fail->Pass and 18/240 Pass->Fail.
    const line = (section(1).match(/<p class="meta test-reuse">([^<]*)<\/p>/)?.[1] ?? '').replaceAll('&#39;', "'");
    const reuse = testReuse(3, {
      result: { fail_to_pass_count: 7, fail_count: 60, pass_to_fail_count: 18, pass_count: 240 } as HeldoutResult,
    });
    expect(line).toBe(
      `test-set reuse: 3 reads; the champion's counts may be optimistic by selection alone by up to about ${reuse?.fail_to_pass.optimism} (Fail→Pass) and ${reuse?.pass_to_fail.optimism} (Pass→Fail)`,
    );
    expect(reuse?.fail_to_pass.optimism).toBeGreaterThan(0);
    // Reads past a spent budget are named as such.
    const spent = rows.map((row): LedgerRow =>
      row.type === 'eval' &&
      row.role === 'test' &&
      row.run_id === 'champ-g001-r0001-base' &&
      row.checkpoint_name === 'checkpoint-0002.pt'
        ? { ...row, test_budget: 'spent' }
        : row,
    );
    const marked = renderReport(spent, { loopId: 'gate-2026', generatedAt: new Date('2026-01-06T00:00:00Z'), state });
    expect(marked).toMatch(/ · 1 after the test budget was spent, which judged nothing/);
    expect(html).not.toContain('after the test budget was spent');
  });

  it('escapes every text that comes from the ledger or the loop id', () => {
    const evil = '<script>alert(1)</script>';
    const tampered = rows.map((row): LedgerRow => (row.type === 'generation' ? { ...row, reason: evil } : row));
    const page = renderReport(tampered, { loopId: `"${evil}`, generatedAt: new Date(0) });
    expect(page).not.toContain('<script>');
    expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('escapes a <script> in a candidate name wherever the name appears: tables and plot tooltips', () => {
    const evil = '<script>alert(1)</script>';
    const renamed = rows.map((row) => JSON.parse(JSON.stringify(row).replaceAll('wide', evil)) as LedgerRow);
    const page = renderReport(renamed, { loopId: 'renamed', generatedAt: new Date(0), state });
    expect(page).not.toMatch(/<script/i);
    const escaped = `champ-g001-r0001-${'&lt;script&gt;alert(1)&lt;/script&gt;'}`;
    const timeline = page.split('<h3>Champion timeline</h3>')[2]?.split('<h3>')[0] ?? '';
    expect(timeline).toContain(escaped);
    expect(page).toContain(`<title>${escaped} checkpoint-0002.pt`);
  });

  it('escapes values that should be numbers but are not (a hand-edited ledger)', () => {
    const odd = '<i>x</i>';
    const tampered = rows.map((row): LedgerRow => {
      if (row.type === 'eval' && row.result)
        return {
          ...row,
          generation: odd as unknown as number,
          result: { ...row.result, fail_to_pass_count: odd as unknown as number },
        };
      if (row.type === 'reserve_check') return { ...row, test_evals: odd as unknown as number };
      return row;
    });
    const page = renderReport(tampered, { loopId: 'odd', generatedAt: new Date(0) });
    expect(page).not.toContain('<i>');
    expect(page).toContain('&lt;i&gt;x&lt;/i&gt;');
  });

  it('renders an empty ledger as a page that says so', () => {
    const page = renderReport([], { loopId: 'new', generatedAt: new Date(0) });
    expect(page).toContain('The ledger has no rows yet.');
    expect(page).not.toContain('<svg');
  });

  it("says a generation's GPU-hours, in all and per champion change, when its runs carry GPU time", () => {
    const gpuRows = seedLedgerRows().map((row) =>
      row.type === 'run' && row.generation === 2 ? { ...row, gpu_seconds: 5400 } : row,
    );
    const runs = gpuRows.filter((row) => row.type === 'run' && row.generation === 2).length;
    const changes = gpuRows.filter((row) => row.type === 'champion' && row.generation === 2).length;
    const page = renderReport(gpuRows, { loopId: 'gpu', generatedAt: new Date(0) });
    const hours = (1.5 * runs).toFixed(2);
    expect(page).toContain(
      `training: ${hours} GPU-hours over ${runs} runs, ${((1.5 * runs) / changes).toFixed(2)} GPU-hours per champion change (${changes})`,
    );
    expect(html).not.toContain('GPU-hours');
  });

  it("says what a generation's GPU-hours cost where its run rows have a price, and how many have none", () => {
    let priced = 0;
    const gpuRows = seedLedgerRows().map((row) => {
      if (row.type !== 'run' || row.generation !== 2) return row;
      // All but the first at $2 an hour (1.5 h: $3 a run); the first without a price.
      priced += 1;
      return priced === 1 ? { ...row, gpu_seconds: 5400 } : { ...row, gpu_seconds: 5400, gpu_usd: 3 };
    });
    const runs = priced;
    const changes = gpuRows.filter((row) => row.type === 'champion' && row.generation === 2).length;
    const page = renderReport(gpuRows, { loopId: 'gpu', generatedAt: new Date(0) });
    const usd = 3 * (runs - 1);
    expect(page).toContain(
      `training: ${(1.5 * runs).toFixed(2)} GPU-hours ($${usd.toFixed(2)}) over ${runs} runs, ` +
        `${((1.5 * runs) / changes).toFixed(2)} GPU-hours ($${(usd / changes).toFixed(2)}) per champion change (${changes}); 1 of them without a price`,
    );
  });

  it('under band decisions the header shows the champion on its decided counts, the raw ones beside them', () => {
    const settings = { mode: 'band-decisions' as const, saturationEvals: 100, maxReserveChecks: 3 };
    const decided = (f2p: number, p2f: number) => ({
      fail_to_pass_count: f2p,
      fail_count: 60,
      pass_to_fail_count: p2f,
      pass_count: 240,
      rejected_total: 4,
    });
    const evals = [
      evalRowOf('champ-g001-r0001-base', 1, 1, 3, { decided: decided(2, 4) }),
      evalRowOf('champ-g001-r0001-wide', 2, 3, 0, { decided: decided(1, 3) }),
    ];
    const band = recordAll(evals, settings);
    const banded: LedgerRow[] = [generationRow(initialLoopState(), 'initial', 1, '2026-01-05T07:00:00Z'), ...band.out];
    const bandState = stateJson(band.state, 'state', '2026-01-05T09:00:00Z');
    const page = renderReport(banded, {
      loopId: 'band',
      generatedAt: new Date(0),
      state: bandState,
      compare: 'decided',
    });
    const header = page.split('<header>')[1]?.split('</header>')[0] ?? '';
    expect(header).toContain('champ-g001-r0001-wide checkpoint-2.pt');
    expect(header).toContain(
      'decided (after the reject band): Fail-&gt;Pass 1/60 (1.67%) · Pass-&gt;Fail 3/240 (1.25%) · raw: Fail-&gt;Pass 3/60 (5.00%) · Pass-&gt;Fail 0/240 (0.00%)',
    );
    // The front table, decided on the same counts, agrees with the header.
    expect(page.split('<h3>Pareto front</h3>')[1]).toContain('1/60 (1.67%)');
  });
});
