import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addTrainingGpu,
  type TrainingGpu,
  idleSoFar,
  noteLaneUse,
  type LaneUse,
} from '../../src/workflows/generation/lane-use.js';

describe("a lane's time without a job of the loop", () => {
  it('counts from when the loop first saw the lane, stops while a job runs, and goes on when the last ends', () => {
    let uses: Record<string, LaneUse> = noteLaneUse({}, ['a'], new Map(), 1_000);
    uses = noteLaneUse(uses, ['a'], new Map([['a', 1]]), 4_000);
    uses = noteLaneUse(uses, ['a'], new Map([['a', 2]]), 6_000);
    expect(idleSoFar(uses.a!, 9_000)).toEqual({ idleMs: 3_000, watchedMs: 8_000 });
    uses = noteLaneUse(uses, ['a'], new Map(), 10_000);
    expect(idleSoFar(uses.a!, 12_500)).toEqual({ idleMs: 5_500, watchedMs: 11_500 });
  });

  it('equals the time with no job, however often it is noted (property)', () => {
    // A lane's timeline: at each second it is busy or not; noted at any subset of the changes' seconds and more.
    fc.assert(
      fc.property(fc.array(fc.boolean(), { minLength: 1, maxLength: 60 }), (busyAt) => {
        let uses: Record<string, LaneUse> = {};
        busyAt.forEach((busy, second) => {
          uses = noteLaneUse(uses, ['a'], new Map(busy ? [['a', 1]] : []), second * 1000);
        });
        const idleSeconds = busyAt.slice(0, -1).filter((busy) => !busy).length;
        const end = (busyAt.length - 1) * 1000;
        expect(idleSoFar(uses.a!, end).idleMs).toBe(idleSeconds * 1000);
      }),
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
