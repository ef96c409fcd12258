import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { candidateDefinition, jobGpuNeed, notePeak, type CandidatePeaks } from '../../src/rules/gpu-needs.js';

const deep = { name: 'deep', base_config: '/c/base.yaml', overrides: { layers: 12 } };

describe('notePeak', () => {
  it('keeps the most a candidate held, under the definition it was held with', () => {
    let peaks: CandidatePeaks = {};
    peaks = notePeak(peaks, deep, 20_000, true);
    peaks = notePeak(peaks, deep, 18_000, true);
    expect(peaks).toEqual({ deep: { definition: candidateDefinition(deep), peakMiB: 20_000 } });
    peaks = notePeak(peaks, deep, 21_000, true);
    expect(peaks.deep?.peakMiB).toBe(21_000);
  });

  it('starts a changed candidate again from its new run, even when that held less', () => {
    const peaks = notePeak({}, deep, 20_000, true);
    const wider = { ...deep, overrides: { layers: 6 } };
    expect(notePeak(peaks, wider, 9_000, true).deep).toEqual({
      definition: candidateDefinition(wider),
      peakMiB: 9_000,
    });
  });

  it('lets a run that did not train raise a known peak, never set the first: it may have ended before its peak', () => {
    expect(notePeak({}, deep, 3_000, false)).toEqual({});
    const peaks = notePeak({}, deep, 20_000, true);
    expect(notePeak(peaks, deep, 24_000, false).deep?.peakMiB).toBe(24_000);
    expect(notePeak(peaks, deep, 3_000, false)).toBe(peaks);
    // Nor does it start a changed candidate again.
    expect(notePeak(peaks, { ...deep, overrides: {} }, 3_000, false)).toBe(peaks);
  });

  it('ignores a run that held nothing (a CPU lane, no per-process view)', () => {
    const peaks = notePeak({}, deep, 20_000, true);
    expect(notePeak(peaks, deep, 0, true)).toBe(peaks);
  });

  it('is the maximum of the peaks noted, in any order', () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 1, max: 150_000 }), { minLength: 1 }), (values) => {
        const peaks = values.reduce<CandidatePeaks>((into, value) => notePeak(into, deep, value, true), {});
        expect(peaks.deep?.peakMiB).toBe(Math.max(...values));
      }),
    );
  });
});

describe('jobGpuNeed', () => {
  const peaks = notePeak({}, deep, 20_480, true);

  it("is the margin times the candidate's peak, and says so", () => {
    expect(jobGpuNeed(deep, peaks, undefined)).toEqual({
      mib: 22_528,
      why: "1.1 x the 20.0 GiB candidate deep's runs held at most",
    });
    expect(jobGpuNeed(deep, peaks, { margin: 1.5 })?.mib).toBe(30_720);
  });

  it("is unknown (the lane's min_free_gib) for a candidate not seen, a changed one, or with learning off", () => {
    expect(jobGpuNeed({ ...deep, name: 'wide' }, peaks, undefined)).toBeUndefined();
    expect(jobGpuNeed({ ...deep, overrides: { layers: 24 } }, peaks, undefined)).toBeUndefined();
    expect(jobGpuNeed(deep, peaks, { learn: false })).toBeUndefined();
  });

  it("takes loop.yaml's fixed need over what was learned, learning on or off", () => {
    const fixed = { mib: 49_152, why: 'loop.yaml gpu_needs.candidates.deep' };
    expect(jobGpuNeed(deep, peaks, { candidates: { deep: 48 } })).toEqual(fixed);
    expect(jobGpuNeed(deep, {}, { learn: false, candidates: { deep: 48 } })).toEqual(fixed);
  });

  it('never asks less than the peak a run was seen holding', () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 150_000 }), fc.double({ min: 1, max: 3, noNaN: true }), (peak, margin) => {
        const need = jobGpuNeed(deep, notePeak({}, deep, peak, true), { margin });
        expect(need?.mib).toBeGreaterThanOrEqual(peak);
      }),
    );
  });
});
