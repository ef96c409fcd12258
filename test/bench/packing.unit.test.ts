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

  it('draws a generation: each training evaluated, then a reserve check, a teacher of three and its ensemble a round', () => {
    const trace = packingTrace(3, 8, 'generation');
    expect(trace).toHaveLength(3 * 21);
    // The trainings are those of the training-only trace.
    expect(trace.filter((entry) => (entry.kind ?? 'training') === 'training')).toEqual(packingTrace(3, 8));
    const ids = new Set(trace.map((entry) => entry.id));
    for (const entry of trace) for (const before of entry.after ?? []) expect(ids.has(before)).toBe(true);
    for (const ensemble of trace.filter((entry) => entry.kind === 'ensemble')) {
      const members = trace.filter(
        (entry) => entry.kind === 'teacher' && entry.id?.startsWith(ensemble.id?.split('-')[0] ?? ''),
      );
      expect(ensemble.peakMiB).toBe(members.reduce((sum, member) => sum + member.peakMiB, 0));
    }
    // An evaluation holds less than its training.
    for (const test of trace.filter((entry) => entry.kind === 'evaluation')) {
      const training = trace.find((entry) => entry.id === test.after?.[0]);
      expect(test.peakMiB).toBeLessThan(training?.peakMiB ?? 0);
    }
  });

  it('runs a step after the steps it comes after, evaluations before the trainings still queued', () => {
    const trace: PackingJob[] = [
      { ...job(60, 10), id: 'a' },
      { ...job(60, 10), id: 'b' },
      { ...job(10, 2), id: 'test-a', kind: 'evaluation', after: ['a'] },
    ];
    const oracle = simulatePacking(trace, card, { kind: 'oracle' }, 16);
    // a, then test-a (priority over b) beside b: 10 + 10 minutes.
    expect(oracle.makespanMs).toBe(20 * 60_000);
    expect(oracle.maxJobs).toBe(2);
  });

  it('recovers an out-of-memory as the lane does: the step waits again by a larger need, a training resumes from its checkpoint', () => {
    // Two runs of one candidate: the second peaks 59 where the first held 40; admitted by 40 beside a 45-GiB job.
    const trace: PackingJob[] = [
      { ...job(40, 10, 0), candidate: 'a', id: 'a1' },
      { ...job(45, 30, 0), candidate: 'b', id: 'b1', after: ['a1'] },
      { ...job(59, 20, 300), candidate: 'a', id: 'a2', after: ['a1'], checkpointMs: 60_000 },
    ];
    const lane = simulatePacking(
      trace,
      card,
      { kind: 'guard', needGiB: 45, pollMs: 5_000, learned: { margin: 1 } },
      16,
    );
    expect(lane.ooms).toBeGreaterThan(0);
    expect(lane.oomWaits).toBe(lane.ooms);
    expect(lane.oomFailed).toBe(0);
    // Work since the last checkpoint (under a minute per out-of-memory) is all it lost.
    expect((lane.meanJobs - lane.meanUsefulJobs) * lane.makespanMs).toBeLessThanOrEqual(lane.ooms * 60_000);
  });

  it('passes a waiting big step with smaller ones when the lane may overtake', () => {
    // The first 20-GiB run teaches its candidate's need (the second brings it); the last two may run beside the first 60 while the second waits.
    const trace: PackingJob[] = [
      job(20, 1, 0),
      job(20, 1, 0),
      job(60, 20, 0),
      job(60, 20, 0),
      job(20, 30, 0),
      job(20, 30, 0),
    ];
    const policy = { kind: 'guard' as const, needGiB: 60, pollMs: 5_000, learned: { margin: 1 } };
    const inOrder = simulatePacking(trace, card, policy, 16);
    const overtaking = simulatePacking(trace, card, { ...policy, overtaking: 4 }, 16);
    expect(overtaking.makespanMs).toBeLessThan(inOrder.makespanMs);
    expect(overtaking.ooms).toBe(0);
  });
});
