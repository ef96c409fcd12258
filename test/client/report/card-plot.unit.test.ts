// Issue 43: the report draws each GPU card over time from the ledger's dispatch and run rows.
import { describe, expect, it } from 'vitest';
import { cardsOf, stackPieces } from '../../../src/client/report/card-model.js';
import { cardsSection } from '../../../src/client/report/card-plot.js';
import { renderReport } from '../../../src/client/report/render-report.js';
import type { DispatchRow, LedgerRow, RunRow } from '../../../src/ledger/rows.js';

const worker = 'champion-loop.box.gpu0';
const GiB = 1024;

function dispatch(
  job: string,
  event: 'reserved' | 'finished',
  time: string,
  needGiB: number,
  kind = 'Job',
): DispatchRow {
  return {
    type: 'dispatch',
    event,
    generation: 1,
    job,
    kind: kind as DispatchRow['kind'],
    slot: 1,
    worker,
    physical_device: 0,
    peak_usage: { gpu_mib: needGiB * GiB },
    retained_usage: { gpu_mib: 0 },
    time: `2026-12-05T${time}Z`,
    ...(event === 'finished' ? { error: null } : {}),
  };
}

function run(runId: string, started: string, extra: Partial<RunRow>): RunRow {
  return {
    type: 'run',
    generation: 1,
    round: 1,
    seed: null,
    candidate: runId,
    run_id: runId,
    config_path: 'c.yaml',
    config_sha256: 'x',
    status: 'trained',
    train_rc: 0,
    started: `2026-12-05T${started}Z`,
    finished: '2026-12-05T11:00:00Z',
    epochs_run: 1,
    checkpoints: [],
    error: null,
    ...extra,
  };
}

// Two trainings side by side, the second after an out-of-memory retry and a wait; then a reserve check.
const rows: LedgerRow[] = [
  dispatch('run-a', 'reserved', '10:00:00', 40),
  run('run-a', '10:00:00', { gpu_peak_mib: 30 * GiB }),
  run('run-b', '10:05:00', { gpu_peak_mib: 20 * GiB, oom_retries: 1, first_started: '2026-12-05T09:58:00Z' }),
  dispatch('run-b', 'reserved', '10:10:00', 24),
  dispatch('run-a', 'finished', '10:30:00', 40),
  dispatch('run-b', 'finished', '10:40:00', 24),
  dispatch('reserve-run-a-ck-n3', 'reserved', '10:45:00', 40, 'ReserveJob'),
  dispatch('reserve-run-a-ck-n3', 'finished', '10:50:00', 40, 'ReserveJob'),
];

describe('the GPU cards over time, from the ledger', () => {
  it('gives each job its time on the card, what it held, its out-of-memory retries and its wait', () => {
    const [card, ...more] = cardsOf(rows);
    expect(more).toEqual([]);
    expect(card?.worker).toBe(worker);
    expect(card?.jobs.map((job) => [job.job, job.heldMiB, job.peakKnown, job.oomRetries])).toEqual([
      ['run-a', 30 * GiB, true, 0],
      ['run-b', 20 * GiB, true, 1],
      ['reserve-run-a-ck-n3', 40 * GiB, false, 0],
    ]);
    // run-b waited from its first attempt's start to its step's start.
    expect(card?.jobs[1]?.waitFromMs).toBe(Date.parse('2026-12-05T09:58:00Z'));
    expect(card?.jobs[0]?.waitFromMs).toBeNull();
  });

  it('stacks the jobs that share the card: their tops are what they held at once', () => {
    const pieces = stackPieces(cardsOf(rows)[0]?.jobs ?? []);
    const at = (time: string) => pieces.filter((piece) => piece.fromMs === Date.parse(`2026-12-05T${time}Z`));
    expect(at('10:10:00').map((piece) => [piece.job, piece.baseMiB])).toEqual([
      [0, 0],
      [1, 30 * GiB],
    ]);
    expect(at('10:30:00').map((piece) => [piece.job, piece.baseMiB])).toEqual([[1, 0]]);
  });

  it('draws one plot per card with a bar per job, the OOM and the wait marked', () => {
    const svg = String(cardsSection(rows));
    expect(svg).toContain('<h2>GPU cards</h2>');
    expect(svg.match(/<svg class="card-plot"/g)).toHaveLength(1);
    expect(svg).toMatch(
      /data-worker="champion-loop\.box\.gpu0" data-device="0" data-jobs="3" data-ooms="1" data-waits="1"/,
    );
    expect(svg.match(/<g class="card-job[^"]*" data-job=/g)).toHaveLength(3);
    expect(svg).toContain('class="card-job alt" data-job="run-b"');
    expect(svg).toContain('class="card-job need-only" data-job="reserve-run-a-ck-n3"');
    expect(svg).toContain(
      'run-b (Job): held at most 20.0 GiB, admitted to 24.0 GiB, 30 min on the card, 1 out-of-memory retry',
    );
    expect(svg).toMatch(/<path class="card-oom" data-job="run-b"/);
    expect(svg).toMatch(/<rect class="card-wait" data-job="run-b"[^>]*><title>run-b waited 12 min for room/);
    expect(svg).toContain("The ledger does not record this card's size");
    expect(svg).not.toContain('class="card-ceiling"');
  });

  it("draws the card's size from its dispatch rows as the ceiling, and scales to it", () => {
    const sized = rows.map((row) => (row.type === 'dispatch' ? { ...row, device_total_mib: 143_771 } : row));
    const [card] = cardsOf(sized);
    expect(card?.totalMiB).toBe(143_771);
    const svg = String(cardsSection(sized));
    expect(svg).toContain('data-total-mib="143771"');
    expect(svg).toMatch(
      /<line class="card-ceiling"[^>]*><title>the card's size: 140\.4 GiB \(143771 MiB, as its lane read it\)/,
    );
    expect(svg).toContain("The line at the top is the card's size, 140.4 GiB, as its lane read it.");
    // The scale reaches past the card's size (the jobs held at most 50 GiB at once).
    expect(svg).toMatch(/text-anchor="end">150<\/text>/);
  });

  it('is in the report, and absent from one without dispatch rows', () => {
    const page = renderReport(rows, { loopId: 'cards', generatedAt: new Date('2026-12-05T12:00:00Z') });
    expect(page).toContain('<section class="cards" id="cards">');
    expect(page).not.toMatch(/https?:|<link|<script|@import|url\(|src=/i);
    expect(String(cardsSection(rows.filter((row) => row.type !== 'dispatch')))).toBe('');
  });
});
