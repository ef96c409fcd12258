import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addTrainingGpu,
  type TrainingGpu,
  idleSoFar,
  noteJobEnded,
  noteLaneUse,
  type LaneUse,
} from '../../src/workflows/generation/lane-use.js';
import { waitIdleIn, type LaneSpan } from '../../src/workflows/generation/lane-waits.js';

/** `count` jobs of the loop on lane `a` since `fromMs`, as the generation notes its flights. */
function onA(count: number, fromMs = 0): Map<string, LaneSpan[]> {
  return new Map(count > 0 ? [['a', Array.from({ length: count }, () => ({ fromMs, toMs: fromMs, waits: [] }))]] : []);
}

describe("a lane's time without a job of the loop", () => {
  it('counts from when the loop first saw the lane, stops while a job runs, and goes on when the last ends', () => {
    let uses: Record<string, LaneUse> = noteLaneUse({}, ['a'], new Map(), 1_000);
    uses = noteLaneUse(uses, ['a'], onA(1, 4_000), 4_000);
    uses = noteLaneUse(uses, ['a'], onA(2, 4_000), 6_000);
    expect(idleSoFar(uses.a!, 9_000)).toEqual({ idleMs: 3_000, watchedMs: 8_000, waitMs: 0 });
    uses = noteLaneUse(uses, ['a'], new Map(), 10_000);
    expect(idleSoFar(uses.a!, 12_500)).toEqual({ idleMs: 5_500, watchedMs: 11_500, waitMs: 0 });
  });

  it('equals the time with no job, however often it is noted (property)', () => {
    // A lane's timeline: at each second it is busy or not; noted at any subset of the changes' seconds and more.
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }), (busyAt) => {
        let uses: Record<string, LaneUse> = {};
        busyAt.forEach((busy, second) => {
          uses = noteLaneUse(uses, ['a'], onA(busy ? 1 : 0, second * 1000), second * 1000);
        });
        const idleSeconds = busyAt.slice(0, -1).filter((busy) => !busy).length;
        const end = (busyAt.length - 1) * 1000;
        expect(idleSoFar(uses.a!, end).idleMs).toBe(idleSeconds * 1000);
      }),
    );
  });
});

describe("a lane's time whose jobs all wait for GPU memory", () => {
  it('counts the time every job on the lane waited, not the time one worked beside a waiting one', () => {
    const spans: LaneSpan[] = [
      { fromMs: 0, toMs: 10_000, waits: [[0, 4_000]] },
      { fromMs: 2_000, toMs: 12_000, waits: [[2_000, 6_000]] },
    ];
    // 0-2 s: the first waits alone; 2-4 s: both wait; 4-6 s: the first works. Then both work, then the second alone.
    expect(waitIdleIn(0, 12_000, spans)).toBe(4_000);
    expect(waitIdleIn(3_000, 12_000, spans)).toBe(1_000);
    // No job on the lane is not counted here (the lane's "no job" time is).
    expect(waitIdleIn(0, 20_000, [{ fromMs: 15_000, toMs: 16_000, waits: [] }])).toBe(0);
  });

  it('adds a reported wait to the idle share once the job reports; a job in flight counts as working', () => {
    let uses: Record<string, LaneUse> = noteLaneUse({}, ['a'], new Map(), 0);
    uses = noteLaneUse(uses, ['a'], onA(1, 1_000), 1_000);
    // In flight: its wait is not known yet.
    expect(idleSoFar(uses.a!, 5_000, onA(1, 1_000).get('a'))).toEqual({ idleMs: 1_000, watchedMs: 5_000, waitMs: 0 });
    uses = noteJobEnded(uses, 'a', 1_000, 9_000, [[1_000, 4_000]]);
    uses = noteLaneUse(uses, ['a'], new Map(), 9_000);
    expect(idleSoFar(uses.a!, 10_000)).toEqual({ idleMs: 1_000 + 3_000 + 1_000, watchedMs: 10_000, waitMs: 3_000 });
    // Settled: nothing of it is kept but the sum.
    expect(uses.a!.waits).toEqual({ waitIdleMs: 3_000, settledMs: 9_000, ended: [] });
  });

  it('ignores a malformed wait and clamps one outside the job', () => {
    let uses: Record<string, LaneUse> = noteLaneUse({}, ['a'], onA(1, 0), 0);
    uses = noteJobEnded(uses, 'a', 0, 10_000, [['x', 1], [-5_000, 2_000], [9_000, 20_000], 7]);
    uses = noteLaneUse(uses, ['a'], new Map(), 10_000);
    expect(idleSoFar(uses.a!, 10_000).waitMs).toBe(3_000);
  });

  it('equals the time no job worked, whatever order jobs report in and however often the lane is noted (property)', () => {
    // Jobs on one lane, each [start, end) in seconds with waits at its start and after out-of-memory ends.
    const job = fc
      .tuple(
        fc.integer({ min: 0, max: 40 }),
        fc.integer({ min: 1, max: 20 }),
        fc.array(fc.integer({ min: 0, max: 20 })),
      )
      .map(([start, length, cuts]) => {
        const end = start + length;
        const points = [...new Set(cuts.map((cut) => start + (cut % length)))].sort((a, b) => a - b);
        const waits: [number, number][] = [];
        for (let at = 0; at + 1 < points.length; at += 2) waits.push([points[at]! * 1000, points[at + 1]! * 1000]);
        return { start, end, waits };
      });
    fc.assert(
      fc.property(
        fc.array(job, { maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 70, maxLength: 70 }),
        (jobs, noted) => {
          const last = 70;
          let uses: Record<string, LaneUse> = noteLaneUse({}, ['a'], new Map(), 0);
          for (let second = 0; second <= last; second += 1) {
            const ms = second * 1000;
            for (const ended of jobs.filter((one) => one.end === second))
              uses = noteJobEnded(uses, 'a', ended.start * 1000, ms, ended.waits);
            const open = jobs.filter((one) => one.start <= second && second < one.end);
            const spans = open.map((one) => ({ fromMs: one.start * 1000, toMs: ms, waits: [] }));
            if (noted[second] || jobs.some((one) => one.start === second || one.end === second))
              uses = noteLaneUse(uses, ['a'], new Map(spans.length > 0 ? [['a', spans]] : []), ms);
          }
          // Brute force: a second is idle when no job is on the lane or every one there waits.
          let idle = 0;
          for (let second = 0; second < last; second += 1) {
            const ms = second * 1000;
            const there = jobs.filter((one) => one.start <= second && second < one.end);
            const working = there.filter((one) => !one.waits.some(([from, to]) => from <= ms && ms < to));
            if (working.length === 0) idle += 1000;
          }
          expect(idleSoFar(uses.a!, last * 1000).idleMs).toBe(idle);
        },
      ),
    );
  });
});

describe("the training's GPU time", () => {
  it("adds a run's seconds to its generation's and the loop's; a row of an earlier generation to the loop's only", () => {
    let gpu: TrainingGpu = { generation: 0, seconds: 0, loopSeconds: 0 };
    gpu = addTrainingGpu(gpu, 1, { generation: 1, seconds: 100 });
    gpu = addTrainingGpu(gpu, 1, { generation: 1, seconds: 50 });
    expect(gpu).toEqual({ generation: 1, seconds: 150, loopSeconds: 150 });
    // Generation 2 opened; a run of generation 1 still reports into it.
    gpu = addTrainingGpu(gpu, 2, { generation: 1, seconds: 30 });
    expect(gpu).toEqual({ generation: 2, seconds: 0, loopSeconds: 180 });
    gpu = addTrainingGpu(gpu, 2, { generation: 2, seconds: 20 });
    expect(gpu).toEqual({ generation: 2, seconds: 20, loopSeconds: 200 });
  });

  it("adds a run's cost the same way, once a run with a price reported (a carry from before has none)", () => {
    let gpu: TrainingGpu = { generation: 1, seconds: 0, loopSeconds: 0 };
    gpu = addTrainingGpu(gpu, 1, { generation: 1, seconds: 3600 });
    expect(gpu.loopUsd).toBeUndefined();
    gpu = addTrainingGpu(gpu, 1, { generation: 1, seconds: 1800, usd: 1.5 });
    expect(gpu).toEqual({ generation: 1, seconds: 5400, loopSeconds: 5400, usd: 1.5, loopUsd: 1.5 });
    gpu = addTrainingGpu(gpu, 2, { generation: 1, seconds: 360, usd: 0.3 });
    expect(gpu).toEqual({ generation: 2, seconds: 0, loopSeconds: 5760, usd: 0, loopUsd: 1.8 });
    gpu = addTrainingGpu(gpu, 2, { generation: 2, seconds: 720, usd: 0.6 });
    expect(gpu).toMatchObject({ usd: 0.6, loopUsd: 1.8 + 0.6 });
  });
});
