import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { GpuReading } from '../../src/workers/gpu-memory.js';
import { LaneAdmission } from '../../src/workers/lane-admission.js';
import { LaneSteps } from '../../src/workers/lane-steps.js';
import { mayOvertake, mayTakeRoomOf } from '../../src/rules/lane-overtaking.js';

const CAPACITY = 80 * 1024;
// No process listed: each running step holds its whole need, as the lane counts it.
const idle: GpuReading = {
  kind: 'gpu',
  memory: { index: 0, totalMiB: CAPACITY, usedMiB: 0, freeMiB: CAPACITY },
  processes: [],
};

/** A lane whose steps wait, start and end as `ops` say; what the test watches of it. */
function runLane(
  overtaking: number,
  ops: readonly { op: 'wait' | 'start' | 'end'; needGiB: number; pick: number; key?: number }[],
) {
  const steps = new LaneSteps(() => 0);
  const lane = new LaneAdmission({ slots: 1000, laneNeedMiB: 40 * 1024, steps, markOf: () => null, overtaking });
  const waiting: { mark: string; needMiB: number; passed: number; key?: number }[] = [];
  const running = new Map<string, number>();
  const violations: string[] = [];
  let next = 0;
  for (const { op, needGiB, pick, key } of ops) {
    if (op === 'wait') {
      const mark = `s${(next += 1)}`;
      lane.reserve();
      waiting.push({ mark, needMiB: lane.wait(mark, needGiB * 1024, key), passed: 0, key });
    } else if (op === 'start' && waiting.length > 0) {
      const step = waiting[pick % waiting.length] as (typeof waiting)[number];
      if (lane.tryStart(step.mark, idle) !== null) continue;
      const before = waiting.slice(0, waiting.indexOf(step));
      waiting.splice(waiting.indexOf(step), 1);
      running.set(step.mark, step.needMiB);
      const runningMiB = [...running.values()].reduce((sum, mib) => sum + mib, 0);
      if (runningMiB > CAPACITY) violations.push(`over-admitted: ${runningMiB} MiB`);
      for (const earlier of before) {
        // Passed as often as it may be: a later step starts only in room that leaves it its own.
        if (!mayOvertake(earlier.passed, overtaking) && runningMiB + earlier.needMiB > CAPACITY)
          violations.push(`${step.mark} took the room of ${earlier.mark}, passed ${earlier.passed} times`);
        // However often it was passed, a more urgent step keeps its room from a less urgent one.
        if (!mayTakeRoomOf(earlier.key, step.key) && runningMiB + earlier.needMiB > CAPACITY)
          violations.push(
            `${step.mark} (key ${step.key}) took the room of more urgent ${earlier.mark} (key ${earlier.key})`,
          );
        earlier.passed += 1;
      }
    } else if (op === 'end' && running.size > 0) {
      const mark = [...running.keys()][pick % running.size] as string;
      running.delete(mark);
      steps.ended(mark);
      lane.release();
    }
  }
  return { violations, waiting, running };
}

const ops = fc.array(
  fc.record({
    op: fc.constantFrom('wait' as const, 'start' as const, 'start' as const, 'end' as const),
    needGiB: fc.integer({ min: 1, max: 80 }),
    pick: fc.nat(),
    // A step's Temporal priority key (step-priority.ts: 1 reserve .. 4 training), or none known.
    key: fc.option(fc.integer({ min: 1, max: 4 }), { nil: undefined }),
  }),
  { maxLength: 80 },
);

describe('overtaking on a GPU lane (rules/lane-overtaking.ts)', () => {
  it('lets a waiting step be passed `overtaking` times, then no more', () => {
    expect(mayOvertake(0, 0)).toBe(false);
    expect(mayOvertake(0, 2)).toBe(true);
    expect(mayOvertake(1, 2)).toBe(true);
    expect(mayOvertake(2, 2)).toBe(false);
    expect(mayOvertake(0, -3)).toBe(false);
  });

  it('never over-admits; a step passed as often as it may be keeps its room, and so does one more urgent than the step starting, whatever the order steps come and go', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), ops, (overtaking, trace) => {
        expect(runLane(overtaking, trace).violations).toEqual([]);
      }),
      { numRuns: 300 },
    );
  });

  it('starts a small step behind a waiting big one while the big one may be passed, not after', () => {
    const trace = (overtaking: number) =>
      runLane(overtaking, [
        { op: 'wait', needGiB: 50, pick: 0 },
        { op: 'start', needGiB: 0, pick: 0 },
        { op: 'wait', needGiB: 50, pick: 0 },
        { op: 'start', needGiB: 0, pick: 1 },
        { op: 'wait', needGiB: 10, pick: 0 },
        { op: 'start', needGiB: 0, pick: 1 },
      ]);
    // 50 runs; the second 50 cannot start; the 10 behind it can, if it may pass the waiting 50.
    expect([...trace(1).running.keys()]).toEqual(['s1', 's3']);
    expect([...trace(0).running.keys()]).toEqual(['s1']);
  });

  it('lets a step pass only steps as urgent as it or less (a smaller priority key is more urgent); unknown keys pass all', () => {
    expect(mayTakeRoomOf(1, 4)).toBe(false);
    expect(mayTakeRoomOf(4, 1)).toBe(true);
    expect(mayTakeRoomOf(2, 2)).toBe(true);
    expect(mayTakeRoomOf(undefined, 4)).toBe(true);
    expect(mayTakeRoomOf(1, undefined)).toBe(true);
  });

  it("never starts a training in the room a waiting reserve check needs, though it may pass a waiting training's", () => {
    const trace = (reserveKey: number) =>
      runLane(64, [
        { op: 'wait', needGiB: 50, pick: 0, key: 4 },
        { op: 'start', needGiB: 0, pick: 0 },
        // 30 GiB free: a reserve check of 40 waits, and so may be passed; a training of 20 comes after it.
        { op: 'wait', needGiB: 40, pick: 0, key: reserveKey },
        { op: 'wait', needGiB: 20, pick: 0, key: 4 },
        { op: 'start', needGiB: 0, pick: 1 },
      ]);
    expect([...trace(1).running.keys()]).toEqual(['s1']);
    expect(trace(1).waiting.map((step) => step.mark)).toEqual(['s2', 's3']);
    // The same 40 GiB step of a training's key: the 20 passes it.
    expect([...trace(4).running.keys()]).toEqual(['s1', 's3']);
  });

  it('never leaves the oldest waiting step unable to start once nothing runs', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 6 }), ops, (overtaking, trace) => {
        const { waiting, running } = runLane(overtaking, trace);
        if (running.size > 0 || waiting.length === 0) return;
        // Nothing runs: the oldest waiting step's room is the whole device, whatever waits behind it.
        const steps = new LaneSteps(() => 0);
        const lane = new LaneAdmission({ slots: 1000, laneNeedMiB: 0, steps, markOf: () => null, overtaking });
        for (const step of waiting) {
          lane.reserve();
          lane.wait(step.mark, step.needMiB, step.key);
        }
        expect(lane.tryStart(waiting[0]?.mark ?? '', idle)).toBeNull();
      }),
      { numRuns: 200 },
    );
  });
});
