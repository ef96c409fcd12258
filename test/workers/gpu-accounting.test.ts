import { readdirSync, readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { STEP_MARK } from '../../src/activities/support/step-survivors.mjs';
import type { GpuProcess, GpuReading } from '../../src/workers/gpu-memory.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { renderStatus } from '../../src/client/render-status.js';
import { describeTestReuse, testReuse } from '../../src/rules/test-reuse.js';
import { laneQueue } from '../../src/config/lanes.js';
import { copyCaughtUp } from '../helpers/bounded-loop.js';
import { rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 26, item 4: a GPU lane's run rows say what their trainer used of the device. The device
// is simulated the way nvidia-smi would list it: every process of a running step (the processes
// carrying its mark, as /proc shows them) holds 1234 MiB of an H200.

const PER_PROCESS_MIB = 1234;

function stepProcesses(): GpuProcess[] {
  const processes: GpuProcess[] = [];
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isSafeInteger(pid)) continue;
    try {
      if (readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`${STEP_MARK}=`))
        processes.push({ pid, usedMiB: PER_PROCESS_MIB });
    } catch {
      // Gone meanwhile.
    }
  }
  return processes;
}

function simulatedH200(): Promise<GpuReading> {
  const processes = stepProcesses();
  const usedMiB = 618 + processes.length * PER_PROCESS_MIB;
  return Promise.resolve({
    kind: 'gpu',
    memory: { index: 0, totalMiB: 143771, usedMiB, freeMiB: 143771 - usedMiB },
    processes,
  });
}

describe('GPU time on run rows', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      // Each epoch takes 400 ms: the guard (reading every 100 ms) sees the trainer hold its memory.
      candidates: [{ name: 'a', overrides: { fixture_sleep_ms: 400 } }],
      lanes: 1,
      gpu: { read: simulatedH200, pollMs: 100 },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it("records each trained run's GPU seconds and the most memory its trainer's processes held", async () => {
    await harness.startWith('gpu-time');
    await harness.waitFor('gpu-time', (view) => view.test_evals >= 3, 120_000);
    await harness.client.workflow.getHandle(loopWorkflowId('gpu-time')).signal(stopSignal);
    await harness.result('gpu-time');
    const runs = rowsOf((await harness.ledger('gpu-time')).rows, 'run').filter((run) => run.status === 'trained');
    expect(runs.length).toBeGreaterThanOrEqual(1);
    for (const run of runs) {
      // Three epochs of at least 400 ms each.
      expect(run.gpu_seconds).toBeGreaterThanOrEqual(1.2);
      expect(run.gpu_seconds).toBeLessThan(120);
      expect(run.gpu_peak_mib).toBeGreaterThanOrEqual(PER_PROCESS_MIB);
      expect((run.gpu_peak_mib ?? 0) % PER_PROCESS_MIB).toBe(0);
      // Seed fields first, in the seed's order; the new ones after them.
      expect(Object.keys(run).slice(-2)).toEqual(['gpu_seconds', 'gpu_peak_mib']);
    }
    console.log(
      `GPU time on run rows: ${runs.length} runs, ${runs.map((run) => `${run.gpu_seconds} s / ${run.gpu_peak_mib} MiB`).join(', ')}`,
    );
  });

  it("prices each trained run's GPU time at its lane's loop.yaml usd_per_gpu_hour, and the loop shows what the training cost", async () => {
    // $3.60 an hour: a run's cost is its GPU seconds / 1000.
    const lanes = harness.config.lanes.map((lane) => ({ ...lane, usd_per_gpu_hour: 3.6 }));
    await harness.startWith('gpu-cost', { lanes });
    await harness.waitFor('gpu-cost', (view) => view.test_evals >= 3, 120_000);
    const view = await harness.view('gpu-cost');
    await harness.client.workflow.getHandle(loopWorkflowId('gpu-cost')).signal(stopSignal);
    await harness.result('gpu-cost');
    const runs = rowsOf((await harness.ledger('gpu-cost')).rows, 'run').filter((run) => run.status === 'trained');
    expect(runs.length).toBeGreaterThanOrEqual(1);
    for (const run of runs) {
      expect(run.gpu_usd).toBe(Math.round((run.gpu_seconds ?? 0) * 10) / 10_000);
      expect(Object.keys(run).slice(-3)).toEqual(['gpu_seconds', 'gpu_peak_mib', 'gpu_usd']);
    }
    // The view the query gave before the stop: every run reported by then is in it.
    expect(view.training_gpu_usd?.loop).toBeGreaterThan(0);
    expect(view.training_gpu_usd?.loop).toBeCloseTo((view.training_gpu_seconds?.loop ?? 0) / 1000, 3);
    // Three test evals or more and a champion: status says what reading the test set may have cost.
    expect(view.champion).not.toBeNull();
    expect(renderStatus(view).split('\n')).toContain(describeTestReuse(testReuse(view.test_evals, view.champion)!));
    expect(renderStatus(view)).toMatch(
      /; cost \$\d+\.\d{2} this generation, \$\d+\.\d{2} in all \(loop.yaml usd_per_gpu_hour\)$/m,
    );
    console.log(`GPU cost on run rows: ${runs.map((run) => `${run.gpu_seconds} s = $${run.gpu_usd}`).join(', ')}`);
  });

  it("writes the seed's dispatch rows around each trained run: reserved just before its run row, finished after its eval rows, in the copy as in history", async () => {
    await harness.startWith('gpu-dispatch');
    // Round 3 planned: a stop lets its run finish, and its need was learned from rounds before.
    await harness.waitFor('gpu-dispatch', (view) => view.round >= 3, 120_000);
    await harness.client.workflow.getHandle(loopWorkflowId('gpu-dispatch')).signal(stopSignal);
    await harness.result('gpu-dispatch');
    const { rows } = await harness.ledger('gpu-dispatch');
    const runs = rowsOf(rows, 'run');
    expect(runs.length).toBeGreaterThanOrEqual(1);
    const lane = harness.config.lanes[0];
    // The packaging workflow's rows go in by time between the generation's: a package that ends
    // while the next run trains lands between that run's dispatch row and its run row (seen under
    // load). Next to each other means among the generation's own rows.
    const generationRows = rows.filter((row) => row.type !== 'package');
    for (const run of runs) {
      const at = generationRows.indexOf(run);
      const reserved = generationRows[at - 1];
      expect(reserved).toMatchObject({
        type: 'dispatch',
        event: 'reserved',
        generation: run.generation,
        job: run.run_id,
        kind: 'Job',
        physical_device: lane?.device,
        retained_usage: { gpu_mib: 0 },
      });
      if (reserved?.type !== 'dispatch') throw new Error('no dispatch row before the run row');
      expect(reserved.worker).toBe(laneQueue(lane?.host ?? '', lane?.device ?? -1));
      expect(reserved.slot).toBeGreaterThanOrEqual(1);
      expect(reserved.peak_usage.gpu_mib).toBeGreaterThan(0);
      // The trainer started once admitted: within the training activity's time.
      expect(reserved.time >= run.started && reserved.time <= run.finished).toBe(true);
      // The seed's fields, in the seed's order; then, not a seed field, the card's size as the lane read it.
      expect(Object.keys(reserved)).toEqual([
        'type',
        'event',
        'generation',
        'job',
        'kind',
        'slot',
        'worker',
        'physical_device',
        'peak_usage',
        'retained_usage',
        'time',
        'device_total_mib',
      ]);
      expect(reserved.device_total_mib).toBeGreaterThanOrEqual(reserved.peak_usage.gpu_mib);
      const evals = rowsOf(rows, 'eval').filter((row) => row.run_id === run.run_id);
      const finished = rows.find(
        (row) => row.type === 'dispatch' && row.event === 'finished' && row.job === run.run_id,
      );
      const { time: _reservedAt, ...same } = reserved;
      expect(finished).toMatchObject({ ...same, event: 'finished', error: null });
      const last = Math.max(at, ...evals.map((row) => rows.indexOf(row)));
      expect(rows.indexOf(finished as (typeof rows)[number])).toBeGreaterThan(last);
      if (finished?.type === 'dispatch')
        expect(finished.time >= [run.finished, ...evals.map((row) => row.finished)].sort().at(-1)!).toBe(true);
    }
    // The first run's need is the lane's min_free_gib (nothing learned yet); a run of a round after
    // a trained one's, 1.1 x the most that candidate's runs held (rules/gpu-needs.ts).
    const needOf = (runId: string) =>
      rowsOf(rows, 'dispatch').find((row) => row.job === runId && row.event === 'reserved')?.peak_usage.gpu_mib;
    const [first, ...later] = runs;
    expect(needOf(first?.run_id ?? '')).toBe((lane?.min_free_gib ?? 0) * 1024);
    const learned = later.find((run) => run.round > (first?.round ?? 0) + 1);
    expect(learned).toBeDefined();
    // Which earlier runs had reported by its dispatch depends on timing: it is 1.1 x one of their peaks.
    const earlier = runs.filter((run) => learned && run.round < learned.round);
    if (learned)
      expect(earlier.map((run) => Math.ceil((run.gpu_peak_mib ?? 0) * 1.1))).toContain(needOf(learned.run_id));
    // The ledger copy in the state dir holds the same rows, each once, once its keeper caught up.
    const copy = await copyCaughtUp(harness, 'gpu-dispatch', harness.configFor('gpu-dispatch').state_dir);
    expect(rowsOf(copy, 'dispatch')).toEqual(rowsOf(rows, 'dispatch'));
    console.log(`dispatch rows: ${rowsOf(rows, 'dispatch').length} for ${runs.length} runs`);
  });

  it("writes a reserve check's dispatch rows (kind ReserveJob) around its reserve eval and reserve_check rows", async () => {
    const loopId = 'gpu-reserve';
    await harness.startWith(loopId, { saturation_evals: 2, max_reserve_checks: 1 });
    await vi.waitFor(
      async () => expect(rowsOf((await harness.ledger(loopId)).rows, 'reserve_check').length).toBeGreaterThanOrEqual(1),
      { timeout: 120_000, interval: 500 },
    );
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await harness.result(loopId);
    const { rows } = await harness.ledger(loopId);
    const lane = harness.config.lanes[0];
    // As above: adjacent among the generation's rows, package rows go in by time.
    const generationRows = rows.filter((row) => row.type !== 'package');
    for (const check of rowsOf(rows, 'reserve_check')) {
      const job = `reserve-${check.run_id}-${check.checkpoint_name}-n${check.test_evals}`;
      const at = generationRows.indexOf(check);
      const reserveEval = generationRows[at - 1];
      expect(reserveEval).toMatchObject({ type: 'eval', role: 'reserve', run_id: check.run_id });
      const reserved = generationRows[at - 2];
      expect(reserved).toMatchObject({
        type: 'dispatch',
        event: 'reserved',
        generation: check.generation,
        job,
        kind: 'ReserveJob',
        worker: laneQueue(lane?.host ?? '', lane?.device ?? -1),
        physical_device: lane?.device,
        retained_usage: { gpu_mib: 0 },
      });
      // Admitted by its candidate's own need (1.1 x what its evaluations, or else its trainings,
      // held at most), never by the lane's min_free_gib once the candidate was learned.
      const need = reserved?.type === 'dispatch' ? reserved.peak_usage.gpu_mib : 0;
      expect(need).toBeGreaterThanOrEqual(Math.ceil(PER_PROCESS_MIB * 1.1));
      expect(need).toBeLessThan((lane?.min_free_gib ?? 0) * 1024);
      const finished = generationRows[at + 1];
      if (reserved?.type !== 'dispatch') throw new Error('no dispatch row before the reserve check');
      const { time: _at, ...same } = reserved;
      expect(finished).toMatchObject({ ...same, event: 'finished', error: null });
    }
    const copy = await copyCaughtUp(harness, loopId, harness.configFor(loopId).state_dir);
    expect(rowsOf(copy, 'dispatch')).toEqual(rowsOf(rows, 'dispatch'));
  });
});
