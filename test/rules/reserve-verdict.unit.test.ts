import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { ALPHA } from '../../src/rules/constants.js';
import { reserveVerdict } from '../../src/rules/reserve-verdict.js';
import type { RateCounts } from '../../src/rules/types.js';
import { worseZTest } from '../../src/rules/z-test.js';

const rates = (f2p: number, fails: number, p2f: number, passes: number): RateCounts => ({
  fail_to_pass_count: f2p,
  fail_count: fails,
  pass_to_fail_count: p2f,
  pass_count: passes,
});

const test = rates(9, 188, 20, 400);

describe('reserveVerdict', () => {
  it('keeps the z statistic and p-value of both error kinds', () => {
    const reserve = rates(20, 188, 20, 400);
    const f2p = worseZTest(9, 188, 20, 188);
    const p2f = worseZTest(20, 400, 20, 400);
    expect(reserveVerdict(test, reserve)).toEqual({
      f2p_z: f2p.z,
      f2p_p: f2p.p,
      p2f_z: p2f.z,
      p2f_p: p2f.p,
      verdict: 'pass',
    });
  });

  it('tests Fail->Pass over fail items and Pass->Fail over pass items', () => {
    const verdict = reserveVerdict(rates(3, 120, 12, 300), rates(11, 95, 1, 310));
    // Expected: the Python loop's z-test in python3 3.11.7 on this machine.
    expect(verdict.f2p_z).toBe(2.679446608231013);
    expect(verdict.p2f_z).toBe(-3.144059147303484);
  });

  it('passes with a p-value between the default alpha of 0.01 and 0.05', () => {
    const verdict = reserveVerdict(test, rates(20, 188, 20, 400));
    expect(verdict.f2p_p).toBeGreaterThan(ALPHA);
    expect(verdict.f2p_p).toBeLessThan(0.05);
    expect(verdict.verdict).toBe('pass');
  });

  it('fails when Fail->Pass alone is significantly worse on reserve', () => {
    const verdict = reserveVerdict(rates(3, 120, 20, 400), rates(11, 95, 20, 400));
    expect(verdict.f2p_p).toBeLessThan(ALPHA);
    expect(verdict.p2f_p).toBeGreaterThanOrEqual(ALPHA);
    expect(verdict.verdict).toBe('fail');
  });

  it('fails when Pass->Fail alone is significantly worse on reserve', () => {
    const verdict = reserveVerdict(rates(9, 188, 3, 120), rates(9, 188, 11, 95));
    expect(verdict.f2p_p).toBeGreaterThanOrEqual(ALPHA);
    expect(verdict.p2f_p).toBeLessThan(ALPHA);
    expect(verdict.verdict).toBe('fail');
  });

  it('passes when the reserve is better than the test set', () => {
    expect(reserveVerdict(rates(20, 188, 30, 400), rates(2, 188, 3, 400)).verdict).toBe('pass');
  });

  it('passes at a p-value exactly equal to alpha', () => {
    const reserve = rates(20, 188, 20, 400);
    const { p } = worseZTest(9, 188, 20, 188);
    expect(reserveVerdict(test, reserve, p).verdict).toBe('pass');
    expect(reserveVerdict(test, reserve, p + Number.EPSILON).verdict).toBe('fail');
  });

  it('finds no evidence on an error kind whose items are none on either set, and judges on the other kind alone', () => {
    // Band decisions: every fail item inside the reject band leaves a decided fail_count of 0.
    const noFails = reserveVerdict(rates(0, 0, 20, 400), rates(0, 0, 20, 400));
    expect(noFails).toMatchObject({ f2p_z: 0, f2p_p: 1, verdict: 'pass' });
    expect(reserveVerdict(rates(9, 188, 20, 400), rates(0, 0, 20, 400))).toMatchObject({
      f2p_z: 0,
      f2p_p: 1,
      verdict: 'pass',
    });
    expect(reserveVerdict(rates(0, 0, 3, 120), rates(5, 40, 11, 95))).toMatchObject({
      f2p_z: 0,
      f2p_p: 1,
      verdict: 'fail',
    });
    expect(reserveVerdict(rates(9, 188, 0, 0), rates(9, 188, 11, 95))).toMatchObject({
      p2f_z: 0,
      p2f_p: 1,
      verdict: 'pass',
    });
    expect(reserveVerdict(rates(3, 120, 0, 0), rates(11, 95, 0, 0))).toMatchObject({
      p2f_z: 0,
      p2f_p: 1,
      verdict: 'fail',
    });
  });

  it('passes exactly when both p-values reach alpha', () => {
    const counts = fc
      .integer({ min: 1, max: 300 })
      .chain((total) => fc.tuple(fc.nat({ max: total }), fc.constant(total)));
    fc.assert(
      fc.property(counts, counts, counts, counts, fc.double({ min: 0, max: 1, noNaN: true }), (a, b, c, d, alpha) => {
        const verdict = reserveVerdict(rates(a[0], a[1], b[0], b[1]), rates(c[0], c[1], d[0], d[1]), alpha);
        const held = worseZTest(a[0], a[1], c[0], c[1]).p >= alpha && worseZTest(b[0], b[1], d[0], d[1]).p >= alpha;
        expect(verdict.verdict).toBe(held ? 'pass' : 'fail');
      }),
    );
  });
});
