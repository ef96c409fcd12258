import { describe, expect, it } from 'vitest';
import { LaneSteps, usedByStep } from '../../src/workers/lane-steps.js';

describe('usedByStep', () => {
  it("adds up each step's processes and leaves out processes of no step", () => {
    const marks: Record<number, string> = { 10: 'a', 11: 'a', 20: 'b' };
    const used = usedByStep(
      [
        { pid: 10, usedMiB: 1000 },
        { pid: 11, usedMiB: 24 },
        { pid: 20, usedMiB: 500 },
        { pid: 99, usedMiB: 7000 },
      ],
      (pid) => marks[pid] ?? null,
    );
    expect([...used]).toEqual([
      ['a', 1024],
      ['b', 500],
    ]);
    expect(usedByStep(undefined, () => 'a').size).toBe(0);
  });
});

describe('LaneSteps', () => {
  it('keeps for each running step its need (or its peak, if more) less what it holds now', () => {
    const steps = new LaneSteps();
    steps.started('a');
    steps.started('b');
    steps.started('c');
    const need = 30 * 1024;
    // a holds 10 GiB, b 40 GiB (past its need), c nothing nvidia-smi lists.
    const used = new Map([
      ['a', 10 * 1024],
      ['b', 40 * 1024],
    ]);
    steps.observe(used);
    expect(steps.headroomMiB(used, need)).toBe((20 + 0 + 30) * 1024);
    // b drops to 5 GiB: it may grow back to its 40 GiB peak.
    expect(steps.headroomMiB(new Map([['b', 5 * 1024]]), need)).toBe((30 + 35 + 30) * 1024);
    expect(steps.count).toBe(3);
  });

  it('says what a step used when it ends (its peak, its seconds), once', () => {
    let now = 1_000;
    const steps = new LaneSteps(() => now);
    steps.sawDevice();
    steps.started('a');
    steps.observe(new Map([['a', 512]]));
    steps.observe(new Map([['a', 2048]]));
    steps.observe(new Map([['a', 1024]]));
    now += 12_345;
    expect(steps.ended('a')).toEqual({ peakMiB: 2048, seconds: 12.3, shared: false });
    expect(steps.ended('a')).toBeNull();
    expect(steps.count).toBe(0);
    expect(steps.headroomMiB(new Map(), 1024)).toBe(0);
  });

  it('says nothing of GPU use on a lane whose device was never read (no nvidia-smi: not GPU time)', () => {
    const steps = new LaneSteps();
    steps.started('a');
    expect(steps.count).toBe(1);
    expect(steps.ended('a')).toBeNull();
    expect(steps.count).toBe(0);
  });
});

describe('LaneSteps: whether a step had the device to itself', () => {
  it('is shared when another step ran beside it or an outside process held more than an idle device does', () => {
    const steps = new LaneSteps(() => 0);
    steps.sawDevice(143_771);
    steps.started('alone');
    steps.observe(new Map([['alone', 1024]]), 615);
    expect(steps.ended('alone')).toMatchObject({ shared: false, totalMiB: 143_771 });
    steps.started('a');
    steps.started('b');
    steps.observe(new Map([['a', 1024]]), 0);
    expect(steps.ended('a')?.shared).toBe(true);
    steps.started('c');
    steps.observe(new Map(), null);
    steps.observe(new Map(), 80 * 1024);
    expect(steps.ended('c')?.shared).toBe(true);
  });
});
