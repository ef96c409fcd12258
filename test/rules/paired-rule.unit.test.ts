import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { dominates } from '../../src/rules/dominance.js';
import { pairedDecision } from '../../src/rules/paired-rule.js';
import type { Counts } from '../../src/rules/types.js';

const counts = (f2p: number, p2f: number): Counts => ({ fail_to_pass_count: f2p, pass_to_fail_count: p2f });
const none = { champion_only: 0, challenger_only: 0 };

describe('pairedDecision', () => {
  it('promotes a dominating challenger that is significantly better on one class', () => {
    // 15 vs 5 discordant: p = 0.0207 <= 0.05 / 2 (Holm's first step).
    const decision = pairedDecision(
      counts(20, 30),
      counts(30, 30),
      {
        f2p: { champion_only: 15, challenger_only: 5 },
        p2f: { champion_only: 4, challenger_only: 4 },
      },
      0.05,
    );
    expect(decision.promote).toBe(true);
    expect(decision.f2p.better).toBe(true);
    expect(decision.p2f.better).toBe(false);
    expect(decision.f2p.p_better).toBeCloseTo(0.020694732666015625, 14);
  });

  it('refuses a dominating challenger whose gain is within noise', () => {
    // 8 vs 2 of 10: p = 0.0547, not significant at any family-wise alpha of 0.05.
    const decision = pairedDecision(
      counts(24, 30),
      counts(30, 30),
      {
        f2p: { champion_only: 8, challenger_only: 2 },
        p2f: none,
      },
      0.05,
    );
    expect(decision.dominates).toBe(true);
    expect(decision.promote).toBe(false);
  });

  it('refuses a challenger significantly worse on the other class, even if better on one', () => {
    const decision = pairedDecision(
      counts(10, 29),
      counts(30, 30),
      {
        f2p: { champion_only: 25, challenger_only: 5 },
        // Same count overall (items both scored differ from all items), but 20 vs 2 the wrong way.
        p2f: { champion_only: 2, challenger_only: 20 },
      },
      0.05,
    );
    expect(decision.p2f.worse).toBe(true);
    expect(decision.promote).toBe(false);
  });

  it('never promotes what dominance would not', () => {
    const count = fc.nat(200);
    const discordant = fc.record({ champion_only: fc.nat(100), challenger_only: fc.nat(100) });
    fc.assert(
      fc.property(count, count, count, count, discordant, discordant, (a, b, c, d, f2p, p2f) => {
        const decision = pairedDecision(counts(a, b), counts(c, d), { f2p, p2f }, 0.05);
        if (decision.promote) {
          expect(dominates(counts(a, b), counts(c, d))).toBe(true);
        }
      }),
    );
  });

  it('refuses an alpha outside (0, 1)', () => {
    expect(() => pairedDecision(counts(1, 1), counts(2, 2), { f2p: none, p2f: none }, 1.5)).toThrow(RangeError);
  });
});
