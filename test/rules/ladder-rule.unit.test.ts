import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { dominates } from '../../src/rules/dominance.js';
import { checkLadderMargin, ladderDecision, ladderRound, ladderSteps } from '../../src/rules/ladder-rule.js';
import type { Counts } from '../../src/rules/types.js';

const counts = (f2p: number, p2f: number): Counts => ({ fail_to_pass_count: f2p, pass_to_fail_count: p2f });
const totals = { fail_count: 400, pass_count: 1600 };

describe('ladderSteps', () => {
  it('takes a whole number as items for both classes', () => {
    expect(ladderSteps(5, totals)).toEqual({ f2p: 5, p2f: 5 });
  });

  it('takes a fraction of each class, rounded up', () => {
    // 0.01 * 400 = 4; 0.01 * 1600 = 16; 0.013 * 400 = 5.2 -> 6.
    expect(ladderSteps(0.01, totals)).toEqual({ f2p: 4, p2f: 16 });
    expect(ladderSteps(0.013, totals)).toEqual({ f2p: 6, p2f: 21 });
    expect(ladderSteps(0.001, { fail_count: 10, pass_count: 10 })).toEqual({ f2p: 1, p2f: 1 });
  });

  it('refuses 0, negatives, 1.5 and other non-margins with what it accepts', () => {
    for (const bad of [0, -1, 1.5, Number.NaN, 1e-400]) {
      expect(() => checkLadderMargin(bad)).toThrow(/whole number of items/);
    }
  });
});

describe('ladderRound', () => {
  it('rounds to the nearest multiple of the step, halves up', () => {
    expect(ladderRound(47, 5)).toBe(45);
    expect(ladderRound(48, 5)).toBe(50);
    expect(ladderRound(45, 10)).toBe(50);
    expect(ladderRound(44, 10)).toBe(40);
    expect(ladderRound(13, 1)).toBe(13);
  });

  it('moves a count by at most half a step and lands on a multiple of it', () => {
    fc.assert(
      fc.property(fc.nat(5000), fc.integer({ min: 1, max: 200 }), (count, step) => {
        const rounded = ladderRound(count, step);
        expect(rounded % step).toBe(0);
        expect(Math.abs(rounded - count)).toBeLessThanOrEqual(step / 2);
      }),
    );
  });
});

describe('ladderDecision', () => {
  it('makes the first eval champion and records its rounded counts', () => {
    const decision = ladderDecision(counts(47, 122), null, 5, totals);
    expect(decision.promote).toBe(true);
    expect(decision.recorded).toEqual(counts(45, 120));
  });

  it('promotes an improvement of at least the step that is worse on neither', () => {
    expect(ladderDecision(counts(40, 120), counts(45, 120), 5, totals).promote).toBe(true);
    expect(ladderDecision(counts(45, 115), counts(45, 120), 5, totals).promote).toBe(true);
  });

  it('refuses a smaller improvement, and one worse on the other class', () => {
    expect(ladderDecision(counts(41, 120), counts(45, 120), 5, totals).promote).toBe(false);
    expect(ladderDecision(counts(30, 121), counts(45, 120), 5, totals).promote).toBe(false);
  });

  it('never promotes what dominance would not (against the recorded champion)', () => {
    const count = fc.nat(300);
    fc.assert(
      fc.property(count, count, count, count, fc.integer({ min: 1, max: 20 }), (a, b, c, d, step) => {
        if (ladderDecision(counts(a, b), counts(c, d), step, totals).promote) {
          expect(dominates(counts(a, b), counts(c, d))).toBe(true);
        }
      }),
    );
  });
});
