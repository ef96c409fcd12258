import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { defaultPayloadConverter } from '@temporalio/common';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STEP_MARK } from '../../src/activities/support/step-survivors.mjs';
import type { GpuProcess, GpuReading } from '../../src/workers/gpu-memory.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import type { TrainingRunInput } from '../../src/workflows/training-run-plan.js';
import { rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 26, item 1: a training job is admitted by its candidate's own need, learned from the peaks
// its earlier runs held, not by the lane's min_free_gib. The device is simulated the way nvidia-smi
// lists it: an H200 on which another program holds 22 GiB (so 117.8 GiB are free), and every
// process of a running step (the processes carrying its mark, as /proc shows them) holds 1234 MiB.

const PER_PROCESS_MIB = 1234;
const FOREIGN_MIB = 22 * 1024;

/**
 * The processes on device 0 of each running step of the loop working in `workdir`, by mark: those
 * pinned to it by the lane's CUDA_VISIBLE_DEVICES, as nvidia-smi would list them. The loop's other
 * steps (the package command runs on the package worker, beside the lane's jobs) are not the
 * GPU's, nor are other tests' steps on this box.
 */
function stepProcesses(workdir: string): { processes: GpuProcess[]; marks: Set<string> } {
  const processes: GpuProcess[] = [];
  const marks = new Set<string>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isSafeInteger(pid)) continue;
    try {
      const environ = readFileSync(`/proc/${pid}/environ`, 'latin1').split('\0');
      const mark = environ.find((variable) => variable.startsWith(`${STEP_MARK}=`))?.slice(STEP_MARK.length + 1);
      if (mark === undefined || !environ.includes('CUDA_VISIBLE_DEVICES=0')) continue;
      if (!readlinkSync(`/proc/${pid}/cwd`).startsWith(workdir)) continue;
      processes.push({ pid, usedMiB: PER_PROCESS_MIB });
      marks.add(mark);
    } catch {
      // Gone meanwhile.
    }
  }
  return { processes, marks };
}

describe("GPU admission by each candidate's own need", () => {
  let harness: LoopHarness;
  // The most steps the lane was seen running at once.
  let together = 0;

  function simulatedH200(): Promise<GpuReading> {
    const { processes, marks } = stepProcesses(harness.dir);
    together = Math.max(together, marks.size);
    const usedMiB = 618 + FOREIGN_MIB + processes.length * PER_PROCESS_MIB;
    return Promise.resolve({
      kind: 'gpu',
      memory: { index: 0, totalMiB: 143771, usedMiB, freeMiB: 143771 - usedMiB },
      processes: [{ pid: 1, usedMiB: FOREIGN_MIB }, ...processes],
    });
  }

  beforeAll(async () => {
    harness = await createLoopHarness({
      // Each epoch takes 300 ms: the guard (reading every 100 ms) sees the trainer hold its memory.
      candidates: [{ name: 'a', overrides: { fixture_sleep_ms: 300 } }],
      lanes: 1,
      // One lane of two slots needing 100 GiB a job: on 117.8 GiB free it runs one job at a time.
      loop: { parallel: 2, lanes: [{ host: 'test', device: 0, slots: 2, min_free_gib: 100 }] },
      gpu: { read: simulatedH200, pollMs: 100 },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it("runs one job at a time on the lane's 100 GiB need, then two at once on the 1.1 x peak its runs held", async () => {
    const loopId = 'gpu-needs';
    await harness.startWith(loopId);
    await harness.waitFor(loopId, (view) => view.test_evals >= 12, 180_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const { view: last } = await harness.result(loopId);

    // What the generation asked of each training run's lane, from its history.
    const events = (await harness.client.workflow.getHandle(loopWorkflowId(loopId)).fetchHistory()).events ?? [];
    const inputs = events
      .map((event) => event.startChildWorkflowExecutionInitiatedEventAttributes?.input?.payloads?.[0])
      .filter((payload) => payload !== undefined && payload !== null)
      .map((payload) => defaultPayloadConverter.fromPayload<TrainingRunInput>(payload));
    const needOf = new Map(
      inputs.filter((input) => input.run === null).map((input) => [input.plan.runId, input.laneJob?.needs.train]),
    );
    const runs = rowsOf((await harness.ledger(loopId)).rows, 'run').filter((run) => run.status === 'trained');
    const first = runs.find((run) => run.round === 1);
    expect(needOf.get(first?.run_id ?? '')).toBeUndefined();
    const learned = [...needOf.values()].filter((need) => need !== undefined);
    expect(learned.length).toBeGreaterThanOrEqual(2);

    const peak = Math.max(...runs.map((run) => run.gpu_peak_mib ?? 0));
    expect(peak).toBeGreaterThanOrEqual(PER_PROCESS_MIB);
    // Each learned need is 1.1 x the most an earlier run held, never less than that run held.
    for (const need of learned) {
      expect(need?.mib).toBeLessThanOrEqual(Math.ceil(peak * 1.1));
      expect(need?.mib).toBeGreaterThanOrEqual(Math.ceil(PER_PROCESS_MIB * 1.1));
      expect(need?.why).toMatch(/^1\.1 x the \d+\.\d GiB candidate a's runs held at most$/);
    }
    // Runs admitted by the lane's 100 GiB trained one at a time (117.8 GiB free): no two overlap.
    const span = (run: (typeof runs)[number]) => [Date.parse(run.started), Date.parse(run.finished)] as const;
    const unlearned = runs.filter((run) => needOf.get(run.run_id) === undefined).map(span);
    expect(unlearned.length).toBeGreaterThanOrEqual(1);
    for (const [i, [start, end]] of unlearned.entries())
      for (const [otherStart, otherEnd] of unlearned.slice(i + 1))
        expect(start >= otherEnd || otherStart >= end).toBe(true);
    // Once the candidate's need was known, the lane ran two of its jobs at once (1.2 GiB each, not 100).
    expect(together).toBe(2);
    // What status shows: the training's GPU time, the sum of the run rows' (rounded to 0.1 s each).
    const rowSeconds = rowsOf((await harness.ledger(loopId)).rows, 'run').reduce(
      (sum, run) => sum + (run.gpu_seconds ?? 0),
      0,
    );
    expect(last.training_gpu_seconds?.loop).toBeCloseTo(rowSeconds, 5);
    expect(last.training_gpu_seconds?.generation).toBeCloseTo(rowSeconds, 5);
    // And the lane's time without a job: some (the split's, the evaluations' hand-over), never more than it was watched.
    const [lane] = last.lanes;
    expect(lane?.watched_seconds).toBeGreaterThan(0);
    expect(lane?.idle_seconds).toBeLessThanOrEqual(lane?.watched_seconds ?? 0);
    console.log(
      `GPU needs: ${learned.length} of ${needOf.size} training runs admitted by a learned need (${learned.map((need) => need?.mib).join(', ')} MiB); peak ${peak} MiB; up to ${together} steps at once`,
    );
  });
});
