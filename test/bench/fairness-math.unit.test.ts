import { describe, expect, it } from 'vitest';
import {
  contendedShares,
  contendedStarts,
  laneShares,
  meanHeld,
  roundsPerHour,
  shareDeviationPercent,
  waits,
  weightShares,
  type LaneStep,
} from '../../bench/lib/fairness-math.js';

const step = (
  loop: string,
  type: string,
  scheduledMs: number,
  startedMs: number | null,
  closedMs: number | null,
  extra: Partial<LaneStep> = {},
): LaneStep => ({
  loop,
  queue: 'lane-0',
  type,
  childStartMs: scheduledMs - 100,
  scheduledMs,
  startedMs,
  closedMs,
  completed: closedMs !== null,
  ...extra,
});

describe('section 12 measures (two loops on shared lanes)', () => {
  const window = { start: 1_000, end: 11_000 };

  it("each loop's lane time is clipped to the window; a step still open counts to its end", () => {
    const steps = [
      step('big', 'trainRun', 0, 500, 3_000), // 2,000 in the window
      step('big', 'trainRun', 0, 9_000, null), // open: 2,000
      step('small', 'trainRun', 0, 2_000, 8_000), // 6,000
      step('small', 'trainRun', 0, null, null), // never started
    ];
    const shares = laneShares(steps, window);
    expect(shares.get('big')).toBeCloseTo(0.4);
    expect(shares.get('small')).toBeCloseTo(0.6);
  });

  it('weights give shares, and the deviation is relative to the weight share', () => {
    const expected = weightShares(
      new Map([
        ['big', 1],
        ['small', 2],
      ]),
    );
    expect(expected.get('small')).toBeCloseTo(2 / 3);
    expect(shareDeviationPercent(0.6, 2 / 3)).toBeCloseTo(10);
    expect(shareDeviationPercent(0.4, 1 / 3)).toBeCloseTo(20);
  });

  it('contended shares count only the time both loops had a step waiting on that lane', () => {
    const steps = [
      // small holds the lane 1,000-11,000; big waits 1,000-6,000, then nothing of big is queued.
      step('small', 'trainRun', 1_000, 1_000, 11_000),
      step('small', 'trainRun', 1_000, null, null),
      step('big', 'trainRun', 1_000, 6_000, 11_000),
      // On another lane nobody competes: not counted.
      step('big', 'trainRun', 1_000, 1_000, 11_000, { queue: 'lane-1' }),
    ];
    const { shares, contendedMs } = contendedShares(steps, ['big', 'small'], window, 100);
    expect(contendedMs).toBe(5_000);
    expect(shares.get('small')).toBe(1);
    expect(shares.get('big')).toBe(0);
  });

  it('contended starts: steps started while the other loop had one waiting on the same lane', () => {
    const steps = [
      step('big', 'trainRun', 1_000, 5_000, 6_000),
      step('small', 'trainRun', 1_000, 2_000, 3_000),
      step('small', 'evaluateRun', 3_000, 3_500, 3_600),
      step('small', 'trainRun', 7_000, 7_000, 8_000), // nothing of big waits then
    ];
    const starts = contendedStarts(steps, window);
    expect(starts.get('small')).toBeCloseTo(2 / 2);
    expect(starts.get('big') ?? 0).toBe(0);
  });

  it("waits from scheduling or from the child's start, of steps started in the window", () => {
    const steps = [
      step('small', 'evaluateReserve', 2_000, 2_700, 3_000),
      step('small', 'evaluateReserve', 500, 900, 1_000), // started before the window
      step('small', 'evaluateRun', 4_000, 4_050, 4_100),
      step('big', 'evaluateReserve', 2_000, 5_000, 5_100),
    ];
    expect(waits(steps, 'small', 'evaluateReserve', window)).toEqual([700]);
    expect(waits(steps, 'small', 'evaluateReserve', window, 'child-start')).toEqual([800]);
    expect(waits(steps, 'small', 'evaluateRun', window)).toEqual([50]);
  });

  it('rounds an hour from completed trainings in the window; mean slot time of a kind', () => {
    const steps = [
      step('small', 'trainRun', 0, 1_000, 4_000),
      step('small', 'trainRun', 0, 2_000, 5_000),
      step('small', 'trainRun', 0, 2_000, 6_000, { completed: false }),
      step('small', 'trainRun', 0, 9_000, 12_000), // closed after the window
    ];
    // 2 trainings of 2 candidates a round in 10 s: 1 round in 10 s, 360 an hour.
    expect(roundsPerHour(steps, 'small', 2, window)).toBeCloseTo(360);
    expect(meanHeld(steps, 'trainRun')).toBeCloseTo((3_000 + 3_000 + 4_000 + 3_000) / 4);
    expect(meanHeld(steps, 'evaluateRun')).toBeNull();
  });
});
