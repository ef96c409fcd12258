import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  candidateDefinition,
  ensembleGpuNeed,
  evaluateGpuNeed,
  needOf,
  oomDecision,
  type NeedsKnown,
  type OomSeen,
} from '../../src/rules/gpu-needs.js';

// Issue 43: every step on a GPU lane is admitted by its own need, and an out-of-memory is a wait.

const strict = { name: 'strict', base_config: '/c/base.yaml', overrides: { gpu_ballast_gib: 45 } };
const tiny = { name: 'tiny', base_config: '/c/base.yaml', overrides: { gpu_ballast_gib: 4 } };
const peak = (candidate: typeof strict, peakMiB: number) => ({
  [candidate.name]: { definition: candidateDefinition(candidate), peakMiB },
});

describe('evaluateGpuNeed', () => {
  it("is the candidate's training need while nothing of its evaluations is known (the real card's reserve OOM)", () => {
    const known: NeedsKnown = { settings: undefined, trainPeaks: peak(strict, 46_800) };
    expect(evaluateGpuNeed(strict, known)).toEqual({
      mib: Math.ceil(46_800 * 1.1),
      why: "1.1 x the 45.7 GiB candidate strict's runs held at most",
    });
    expect(evaluateGpuNeed(tiny, known)).toBeUndefined();
  });

  it('is learned from its evaluations once they held something, and a loop.yaml need wins over both', () => {
    const known: NeedsKnown = {
      settings: { margin: 1.2 },
      trainPeaks: peak(strict, 46_800),
      evaluatePeaks: peak(strict, 10_000),
    };
    expect(evaluateGpuNeed(strict, known)?.mib).toBe(12_000);
    expect(evaluateGpuNeed(strict, { ...known, settings: { candidates: { strict: 50 } } })?.mib).toBe(50 * 1024);
    // A changed candidate learns afresh: its old evaluation peak says nothing.
    const changed = { ...strict, overrides: { gpu_ballast_gib: 60 } };
    expect(evaluateGpuNeed(changed, known)).toBeUndefined();
  });
});

describe('ensembleGpuNeed', () => {
  it("is its members' evaluation needs together, unknown while one member's is", () => {
    const known: NeedsKnown = { settings: undefined, trainPeaks: { ...peak(strict, 1000), ...peak(tiny, 100) } };
    expect(ensembleGpuNeed([strict, tiny, tiny], known)?.mib).toBe(Math.ceil(1000 * 1.1) + 2 * Math.ceil(100 * 1.1));
    expect(ensembleGpuNeed([strict, { ...tiny, name: 'new' }], known)).toBeUndefined();
    expect(ensembleGpuNeed([], known)).toBeUndefined();
  });

  it("counts a member nothing was learned of at the lane's default, given one; none known is still unknown", () => {
    const known: NeedsKnown = { settings: undefined, trainPeaks: { ...peak(strict, 1000), ...peak(tiny, 100) } };
    const fresh = { ...tiny, name: 'new' };
    const need = ensembleGpuNeed([strict, fresh, tiny], known, 30 * 1024);
    expect(need?.mib).toBe(Math.ceil(1000 * 1.1) + 30 * 1024 + Math.ceil(100 * 1.1));
    expect(need?.why).toBe("the 3 members' evaluation needs together, 1 of them unknown and counted at 30.0 GiB");
    expect(ensembleGpuNeed([fresh, { ...fresh, name: 'newer' }], known, 30 * 1024)).toBeUndefined();
  });
});

describe('needOf', () => {
  it("finds a member's need, else the job's evaluation need", () => {
    const needs = { train: { mib: 1, why: 't' }, evaluate: { mib: 2, why: 'e' }, members: { m: { mib: 3, why: 'm' } } };
    expect(needOf(needs, 'train')?.mib).toBe(1);
    expect(needOf(needs, { member: 'm' })?.mib).toBe(3);
    expect(needOf(needs, { member: 'other' })?.mib).toBe(2);
    expect(needOf(undefined, 'train')).toBeUndefined();
  });
});

describe('oomDecision', () => {
  const seen: OomSeen = {
    needMiB: 30 * 1024,
    peakMiB: 0,
    askedMiB: 45 * 1024,
    shared: true,
    retries: 0,
    limit: 4,
    totalMiB: 143_771,
  };

  it('waits for what the step held plus what it asked for (the real card: admitted at 30 GiB, asked 45)', () => {
    const decision = oomDecision(seen);
    expect(decision).toEqual({
      retry: true,
      need: { mib: 1024 + 45 * 1024, why: expect.stringMatching(/^out of GPU memory with 30\.0 GiB/) as string },
    });
  });

  it('fails a step that ran out alone on the device past its size, and one out of retries', () => {
    expect(oomDecision({ ...seen, shared: false, askedMiB: 150 * 1024 })).toMatchObject({
      retry: false,
      why: expect.stringMatching(/alone on the device/) as string,
    });
    expect(oomDecision({ ...seen, retries: 4 })).toMatchObject({
      retry: false,
      why: 'it ran out of GPU memory 5 times (loop.yaml retries.oom: 4)',
    });
    // Alone but held to a need below the device (a hard cap): waiting for more can help.
    expect(oomDecision({ ...seen, shared: false, askedMiB: 1024 })).toMatchObject({ retry: true });
  });

  it('always grows the need, never past the device, while retries last', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 150_000 }),
        fc.integer({ min: 0, max: 150_000 }),
        fc.option(fc.integer({ min: 0, max: 150_000 })),
        fc.option(fc.boolean()),
        (needMiB, peakMiB, askedMiB, shared) => {
          const decision = oomDecision({ ...seen, needMiB, peakMiB, askedMiB, shared });
          if (!decision.retry) return shared === false;
          return decision.need.mib <= 143_771 && (decision.need.mib > needMiB || needMiB >= 143_771);
        },
      ),
    );
  });
});
