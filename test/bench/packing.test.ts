import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { packingTrace, simulatePacking, type Card, type PackingJob } from '../../bench/lib/packing.js';

const card: Card = { name: 'test card', totalMiB: 100 * 1024, idleUsedMiB: 0 };
const job = (peakGiB: number, minutes = 10, rampS = 60): PackingJob => ({
  candidate: `c${peakGiB}`,
  peakMiB: peakGiB * 1024,
  durationMs: minutes * 60_000,
  rampMs: rampS * 1000,
});

describe('the packing simulation', () => {
  it('runs jobs that fit together at once under every policy that knows their needs', () => {
    const trace = [job(20), job(20), job(20), job(20)];
    const oracle = simulatePacking(trace, card, { kind: 'oracle' }, 16);
    expect(oracle).toMatchObject({ jobs: 4, maxJobs: 4, ooms: 0 });
    expect(oracle.makespanMs).toBe(10 * 60_000);
    const lane = simulatePacking(trace, card, { kind: 'guard', needGiB: 20, pollMs: 5_000 }, 16);
    expect(lane).toMatchObject({ maxJobs: 4, ooms: 0 });
  });

  it("the candidate oracle admits by a candidate's largest peak: a pair that fits by the runs' own peaks waits", () => {
    // Two candidates whose largest runs (60 + 45) do not fit 100 together; these two runs (55 + 44) do.
    const run = (candidate: string, peakGiB: number): PackingJob => ({ ...job(peakGiB), candidate });
    const trace = [run('a', 55), run('b', 44)];
    // Later runs of the same candidates peak at their largest: the candidate oracle knows it from the start.
    const known = [run('a', 60), run('b', 45)];
    const oracle = simulatePacking(trace, card, { kind: 'oracle' }, 16);
    expect(oracle).toMatchObject({ maxJobs: 2, ooms: 0 });
    const byCandidate = simulatePacking([...trace, ...known], card, { kind: 'oracle', knows: 'candidate' }, 16);
    expect(byCandidate).toMatchObject({ maxJobs: 1, ooms: 0 });
    expect(byCandidate.makespanMs).toBe(4 * 10 * 60_000);
  });

  it("counts a job's memory once in the lane: when a job ends, the next starts in the room it left", () => {
    // Needs of 30 on 100, each job holding all of it at once: three run; when the short one ends
    // the fourth fits (100 - 2 x 30 held). Counting need and use both (100 - 60 used - 60 needed),
    // the lane would wait for the long ones to end.
    const trace = [job(30, 1, 0), job(30, 10, 0), job(30, 10, 0), job(30, 10, 0)];
    const lane = simulatePacking(trace, card, { kind: 'guard', needGiB: 30, pollMs: 5_000 }, 16);
    expect(lane).toMatchObject({ maxJobs: 3, ooms: 0 });
    expect(lane.makespanMs).toBeLessThanOrEqual(11 * 60_000 + 5_000);
  });

  it("OOMs under the seed's policy when jobs grow past what was free at their launch (their work lost), never in the lane with a need that covers them", () => {
    // 45 GiB jobs ramping for 5 minutes: after the 30 s gap the first holds only part of its peak.
    const trace = Array.from({ length: 6 }, () => job(45, 20, 300));
    const seed = simulatePacking(
      trace,
      card,
      { kind: 'seed', minFreeGiB: 30, pollMs: 30_000, launchGapMs: 30_000 },
      16,
    );
    expect(seed.ooms).toBeGreaterThan(0);
    // The work kept leaves out the OOM-killed trainings: every job ran its 20 minutes once to the end.
    expect(seed.meanUsefulJobs).toBeLessThan(seed.meanJobs);
    expect(seed.meanUsefulJobs * seed.makespanMs).toBe(6 * 20 * 60_000);
    const lane = simulatePacking(trace, card, { kind: 'guard', needGiB: 45, pollMs: 5_000 }, 16);
    expect(lane.ooms).toBe(0);
    expect(lane.maxJobs).toBe(2);
    expect(lane.meanUsefulJobs).toBe(lane.meanJobs);
  });

  it('learns per-candidate needs from the peaks earlier runs held', () => {
    const trace = Array.from({ length: 12 }, () => job(10, 10, 30));
    const fixed = simulatePacking(trace, card, { kind: 'guard', needGiB: 45, pollMs: 5_000 }, 16);
    const learned = simulatePacking(
      trace,
      card,
      { kind: 'guard', needGiB: 45, pollMs: 5_000, learned: { margin: 1.1 } },
      16,
    );
    expect(learned.ooms).toBe(0);
    expect(learned.meanJobs).toBeGreaterThan(fixed.meanJobs);
    expect(learned.makespanMs).toBeLessThan(fixed.makespanMs);
  });

  it("never OOMs in the lane when every job's need covers its peak, whatever the jobs (its own admission rules)", () => {
    const jobs = fc.array(
      fc.record({
        candidate: fc.constantFrom('a', 'b', 'c'),
        peakMiB: fc.integer({ min: 512, max: 60 * 1024 }),
        durationMs: fc.integer({ min: 10, max: 300 }).map((s) => s * 1000),
        rampMs: fc.integer({ min: 0, max: 120 }).map((s) => s * 1000),
      }),
      { minLength: 1, maxLength: 25 },
    );
    fc.assert(
      fc.property(jobs, fc.integer({ min: 1, max: 8 }), (trace, slots) => {
        // The lane's need covers the largest peak (a candidate's peak varies, so learned needs may not).
        const needGiB = Math.max(...trace.map((entry) => entry.peakMiB)) / 1024;
        const lane = simulatePacking(trace, card, { kind: 'guard', needGiB, pollMs: 5_000 }, slots);
        expect(lane.ooms).toBe(0);
        expect(lane.maxJobs).toBeLessThanOrEqual(slots);
      }),
      { numRuns: 60 },
    );
  });

  it('never OOMs in the lane on learned needs when each candidate peaks the same in every run', () => {
    const peaks = fc.record({
      a: fc.integer({ min: 512, max: 60 * 1024 }),
      b: fc.integer({ min: 512, max: 60 * 1024 }),
      c: fc.integer({ min: 512, max: 60 * 1024 }),
    });
    // A training reaches its peak within its run (its first steps do): no job ends while it ramps.
    const runs = fc.array(
      fc
        .record({
          candidate: fc.constantFrom('a' as const, 'b' as const, 'c' as const),
          durationS: fc.integer({ min: 10, max: 300 }),
          rampS: fc.integer({ min: 0, max: 120 }),
        })
        .map(({ candidate, durationS, rampS }) => ({
          candidate,
          durationMs: (durationS + rampS) * 1000,
          rampMs: rampS * 1000,
        })),
      { minLength: 1, maxLength: 25 },
    );
    fc.assert(
      fc.property(peaks, runs, (peakOf, trace) => {
        const jobs = trace.map((entry) => ({ ...entry, peakMiB: peakOf[entry.candidate] }));
        const lane = simulatePacking(
          jobs,
          card,
          { kind: 'guard', needGiB: 60, pollMs: 5_000, learned: { margin: 1 } },
          8,
        );
        expect(lane.ooms).toBe(0);
      }),
      { numRuns: 60 },
    );
  });

  it('draws the same trace for the same seed: eight candidates a round, peaks 6 to 45 GiB', () => {
    const trace = packingTrace(25, 8);
    expect(trace).toHaveLength(200);
    expect(packingTrace(25, 8)).toEqual(trace);
    const peaks = trace.map((entry) => entry.peakMiB / 1024);
    expect(Math.min(...peaks)).toBeGreaterThanOrEqual(6 * 0.95);
    expect(Math.max(...peaks)).toBeLessThanOrEqual(45);
  });
});
