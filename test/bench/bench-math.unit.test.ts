import { describe, expect, it } from 'vitest';
import { drawDurations } from '../../bench/lib/durations.js';
import { figure, renderTable } from '../../bench/lib/figures.js';
import { grahamBound, idealMakespan, listScheduleMakespan } from '../../bench/lib/makespan.js';
import { parseOptions } from '../../bench/lib/options.js';
import { simulateSeedLoop } from '../../bench/lib/seed-policy.js';
import { dispatchGaps } from '../../bench/lib/slots.js';
import { percentile, summarize } from '../../bench/lib/stats.js';
import { jobOfConfig, parseTrace, tracedJobs } from '../../bench/lib/trace.js';

describe('percentiles', () => {
  it('interpolate between the closest ranks', () => {
    const samples = [5, 1, 4, 2, 3];
    expect(percentile(samples, 0)).toBe(1);
    expect(percentile(samples, 50)).toBe(3);
    expect(percentile(samples, 100)).toBe(5);
    expect(percentile(samples, 25)).toBe(2);
    expect(percentile([10, 20], 99)).toBeCloseTo(19.9);
    expect(
      percentile(
        Array.from({ length: 101 }, (_, i) => i),
        99,
      ),
    ).toBe(99);
  });

  it('summarise n, min, p50, p95, p99, max and mean; nothing gives NaN', () => {
    const summary = summarize([1, 2, 3, 4]);
    expect(summary).toMatchObject({ n: 4, min: 1, p50: 2.5, max: 4, mean: 2.5 });
    expect(summary.p95).toBeCloseTo(3.85, 9);
    expect(summary.p99).toBeCloseTo(3.97, 9);
    expect(Number.isNaN(summarize([]).p99)).toBe(true);
  });
});

describe("the Python loop's policy simulation", () => {
  it('launches one job per 30 s turn, so a lane freed at 10 s waits until the 60 s turn', () => {
    // t=0 job 0 on lane 0 (ends 10); t=30 job 1 on lane 1, never used (ends 40); t=60 job 2 on lane 0, free since 10.
    const seed = simulateSeedLoop([10_000, 10_000, 10_000], 2);
    expect(seed.jobs).toEqual([
      { lane: '0', start: 0, end: 10_000 },
      { lane: '1', start: 30_000, end: 40_000 },
      { lane: '0', start: 60_000, end: 70_000 },
    ]);
    expect(seed.makespan).toBe(70_000);
    expect(dispatchGaps(seed.jobs).map((d) => d.gap)).toEqual([50_000]);
  });

  it('waits for a free slot: long jobs on one lane start on the first turn after each end', () => {
    const seed = simulateSeedLoop([45_000, 45_000], 1, { pollMs: 30_000, launchGapMs: 30_000 });
    expect(seed.jobs.map((job) => job.start)).toEqual([0, 60_000]);
    expect(dispatchGaps(seed.jobs).map((d) => d.gap)).toEqual([15_000]);
  });
});

describe('makespan bounds', () => {
  it('the ideal is total work over lanes, or the longest job when that is longer', () => {
    expect(idealMakespan([4, 4, 4, 4], 2)).toBe(8);
    expect(idealMakespan([10, 1, 1], 3)).toBe(10);
    expect(idealMakespan([], 4)).toBe(0);
  });

  it("list scheduling in order sits between the ideal and Graham's bound", () => {
    // Order 1,1,1,3 on 2 lanes: 1|1, then 1 -> lane A (2), 3 -> lane B (4): makespan 4; ideal 3; Graham 3 + 1.5.
    expect(listScheduleMakespan([1, 1, 1, 3], 2)).toBe(4);
    expect(idealMakespan([1, 1, 1, 3], 2)).toBe(3);
    expect(grahamBound([1, 1, 1, 3], 2)).toBe(4.5);
    const work = drawDurations(200, 8, 2000, 6000);
    const listed = listScheduleMakespan(work, 4);
    expect(listed).toBeGreaterThanOrEqual(idealMakespan(work, 4));
    expect(listed).toBeLessThanOrEqual(grahamBound(work, 4));
  });

  it('draws the same durations for the same seed, within the range', () => {
    const a = drawDurations(50, 8, 2000, 6000);
    expect(drawDurations(50, 8, 2000, 6000)).toEqual(a);
    expect(a.every((ms) => ms >= 2000 && ms <= 6000 && Number.isInteger(ms))).toBe(true);
    expect(drawDurations(50, 9, 2000, 6000)).not.toEqual(a);
  });
});

describe('dispatch gaps', () => {
  it('are the next start minus the previous end on each one-slot lane', () => {
    const jobs = [
      { lane: 'a', start: 0, end: 10 },
      { lane: 'b', start: 1, end: 5 },
      { lane: 'a', start: 12, end: 20 },
      { lane: 'b', start: 9, end: 30 },
    ];
    expect(dispatchGaps(jobs).map((d) => [d.lane, d.gap, d.previous, d.next])).toEqual([
      ['b', 4, 1, 3],
      ['a', 2, 0, 2],
    ]);
  });

  it('take the slot free longest on a lane with two slots', () => {
    const jobs = [
      { lane: 'a', start: 0, end: 10 },
      { lane: 'a', start: 0, end: 4 },
      { lane: 'a', start: 6, end: 20 },
      { lane: 'a', start: 11, end: 15 },
    ];
    expect(dispatchGaps(jobs, () => 2).map((d) => d.gap)).toEqual([2, 1]);
  });
});

describe('the step trace', () => {
  it("pairs a run's train and evaluate steps by config, and takes an ensemble step as a job of its own", () => {
    const config = '/s/configs/gen-001/round-0003/c07.yaml';
    const text = [
      { step: 'train', lane: '1', pid: 1, start: 100, loaded: 150, end: 1100, config, manifest: null },
      { step: 'evaluate', lane: '1', pid: 2, start: 1200, loaded: 1250, end: 1400, config, manifest: null },
      {
        step: 'evaluate-ensemble',
        lane: '0',
        pid: 3,
        start: 50,
        loaded: 90,
        end: 300,
        config: null,
        manifest: '/s/ensembles/gen-001/round-0003-all.json',
      },
      {
        step: 'train',
        lane: '0',
        pid: 4,
        start: 400,
        loaded: 450,
        end: 500,
        config: '/s/configs/gen-001/round-0004/x.yaml',
        manifest: null,
      },
    ]
      .map((line) => JSON.stringify(line))
      .join('\n');
    const jobs = tracedJobs(parseTrace(text));
    expect(jobs.map((job) => [job.kind, job.lane, job.start, job.end, job.work])).toEqual([
      ['ensemble', '0', 50, 300, 250],
      ['run', '1', 100, 1400, 1200],
    ]);
    expect(tracedJobs(parseTrace(text, 'lane-9')).every((job) => job.lane === 'lane-9')).toBe(true);
    expect(jobOfConfig(config)).toEqual({ generation: 1, round: 3, candidate: 'c07' });
    expect(jobOfConfig('/s/ensembles/gen-001/round-0003-all.json')).toBeNull();
  });
});

describe('figures and options', () => {
  it('judge each figure against its goal and print it beside the goal', () => {
    const rows = [
      figure('dispatch', 'p99', 300, 'ms', { op: '<', value: 250 }),
      figure('history', 'events per run', 9.5, '', { op: '<=', value: 10 }),
      figure('x', 'n/a', null, 'ms', { op: '<', value: 1 }),
    ];
    expect(rows.map((row) => row.met)).toEqual([false, true, null]);
    const table = renderTable(rows);
    expect(table).toMatch(/p99\s+300 ms\s+< 250 ms\s+MISSED/);
    expect(table).toMatch(/events per run\s+9.50\s+<= 10.0\s+met/);
  });

  it('take sizes from flags over BENCH_ variables over the quick or full defaults', () => {
    expect(parseOptions([], {}).historyRuns).toBe(5000);
    expect(parseOptions(['--quick'], {}).historyRuns).toBe(120);
    expect(parseOptions(['--quick'], { BENCH_HISTORY_RUNS: '300' }).historyRuns).toBe(300);
    expect(parseOptions(['--quick', '--history-runs', '400'], { BENCH_HISTORY_RUNS: '300' }).historyRuns).toBe(400);
    expect(parseOptions(['--job-ms=100-200', '--sections', 'dispatch'], {})).toMatchObject({
      jobMinMs: 100,
      jobMaxMs: 200,
      sections: ['dispatch'],
    });
    expect(() => parseOptions(['--processes', '3'], {})).toThrow(/divide/);
    expect(() => parseOptions(['--bogus'], {})).toThrow(/unknown option/);
  });
});
