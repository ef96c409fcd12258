import proto from '@temporalio/proto';
import Long from 'long';
import { describe, expect, it } from 'vitest';
import {
  busyFraction,
  dispatchCeiling,
  lanesCarried,
  steadyWindow,
  workflowTaskStats,
} from '../../bench/lib/fleet-math.js';
import type { HistoryEvent } from '../../bench/lib/history.js';
import { parseOptions } from '../../bench/lib/options.js';

const E = proto.temporal.api.enums.v1.EventType;
const at = (ms: number) => ({ seconds: Long.fromNumber(Math.floor(ms / 1000)), nanos: (ms % 1000) * 1e6 });

/** A workflow task: scheduled, started, completed at the given times (ms), events numbered from `id`. */
function task(id: number, scheduled: number, started: number, completed: number): HistoryEvent[] {
  return [
    { eventId: Long.fromNumber(id), eventType: E.EVENT_TYPE_WORKFLOW_TASK_SCHEDULED, eventTime: at(scheduled) },
    {
      eventId: Long.fromNumber(id + 1),
      eventType: E.EVENT_TYPE_WORKFLOW_TASK_STARTED,
      eventTime: at(started),
      workflowTaskStartedEventAttributes: { scheduledEventId: Long.fromNumber(id) },
    },
    {
      eventId: Long.fromNumber(id + 2),
      eventType: E.EVENT_TYPE_WORKFLOW_TASK_COMPLETED,
      eventTime: at(completed),
      workflowTaskCompletedEventAttributes: {
        scheduledEventId: Long.fromNumber(id),
        startedEventId: Long.fromNumber(id + 1),
      },
    },
  ];
}

describe('steadyWindow', () => {
  it('runs from the start that filled the last slot to the last start', () => {
    expect(steadyWindow([0, 10, 5, 100, 40], 3)).toEqual({ from: 10, to: 100 });
  });
  it('is null without more jobs than slots', () => {
    expect(steadyWindow([0, 10], 2)).toBeNull();
  });
});

describe('busyFraction', () => {
  it('counts only the part of each span inside the window, over slots x window', () => {
    // Two slots over [10, 20]: one busy all along, the other from 15 on (half).
    const spans = [
      { start: 0, end: 30 },
      { start: 15, end: 40 },
    ];
    expect(busyFraction(spans, 2, { from: 10, to: 20 })).toBeCloseTo(0.75);
  });
  it('is NaN for an empty window', () => {
    expect(busyFraction([{ start: 0, end: 1 }], 1, { from: 5, to: 5 })).toBeNaN();
  });
});

describe('workflowTaskStats', () => {
  it('reads schedule-to-start, task time and the rate of tasks completed within the window, over continue-as-new', () => {
    const first = [...task(1, 0, 10, 60), ...task(4, 1000, 1300, 1400)];
    const second = task(1, 2000, 2020, 2100);
    const stats = workflowTaskStats([first, second], { from: 500, to: 2500 });
    expect(stats.completed).toBe(2);
    expect(stats.ratePerS).toBeCloseTo(1);
    expect(stats.scheduleToStart.n).toBe(2);
    expect(stats.scheduleToStart.max).toBeCloseTo(300);
    expect(stats.scheduleToStart.min).toBeCloseTo(20);
    expect(stats.taskTime.max).toBeCloseTo(100);
    // Scheduled -> completed inside [500, 2500]: 1000..1400 and 2000..2100 of 2,000 ms.
    expect(stats.occupancy).toBeCloseTo(0.25);
    expect(stats.events).toBe(9);
    expect(stats.runs).toBe(2);
  });
});

describe('dispatchCeiling', () => {
  it('is the highest rate whose p99 stays within the limit, and says whether the limit was passed', () => {
    const steps = [
      { ratePerS: 4, p99Ms: 200 },
      { ratePerS: 9, p99Ms: 700 },
      { ratePerS: 11, p99Ms: 1800 },
    ];
    expect(dispatchCeiling(steps, 1000)).toEqual({ ceilingPerS: 9, passed: true });
    expect(dispatchCeiling(steps.slice(0, 2), 1000)).toEqual({ ceilingPerS: 9, passed: false });
  });
  it('is null when every step passed the limit', () => {
    expect(dispatchCeiling([{ ratePerS: 3, p99Ms: 1500 }], 1000)).toEqual({ ceilingPerS: null, passed: true });
  });
});

describe('lanesCarried', () => {
  it('is the rate times the job length (10 dispatches/s feed 6,000 lanes of 10-minute jobs)', () => {
    expect(lanesCarried(10, 600)).toBe(6000);
    expect(lanesCarried(10, 3600)).toBe(36_000);
  });
});

describe('the fleet options', () => {
  it('measure 16, 32 and 64 lanes in a full run and 16 in a quick one, selectable alone', () => {
    expect(parseOptions([], {})).toMatchObject({
      fleetSizes: [16, 32, 64],
      fleetProcesses: 8,
      fleetJobMs: [5000, 15000],
    });
    expect(parseOptions(['--quick', '--sections', 'fleet'], {})).toMatchObject({
      sections: ['fleet'],
      fleetSizes: [16],
    });
    expect(parseOptions(['--fleet-steps', '400-800,100-200'], {}).fleetSteps).toEqual([
      [400, 800],
      [100, 200],
    ]);
  });
  it('refuse sizes the lane processes cannot share evenly, and ranges upside down', () => {
    expect(() => parseOptions(['--fleet-sizes', '12'], {})).toThrow(/multiple of --fleet-processes/);
    expect(() => parseOptions(['--fleet-steps', '300-100'], {})).toThrow(/MIN <= MAX/);
  });
});
