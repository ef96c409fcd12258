import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { championChangeReason } from '../../src/rules/champion-change.js';
import { frontChampion } from '../../src/rules/champion.js';
import type { Compared } from '../../src/rules/types.js';

// Issue 47: the report says what decided each champion change (the rule, or the band's tie-break).

const block = (f2p: number, p2f: number, rejected = 0): Compared => ({
  fail_to_pass_count: f2p,
  pass_to_fail_count: p2f,
  rejected_total: rejected,
});

const decided = (f2p: number, p2f: number, rejected = 0) => ({ decided: block(f2p, p2f, rejected) });

describe('championChangeReason', () => {
  it('names the first champion of a generation', () => {
    expect(championChangeReason({ previous: null, champion: { result: block(3, 0) } }, 'result')).toBe(
      'the first champion of its generation',
    );
  });

  it('default mode: the dominance, with both counts before and after', () => {
    expect(
      championChangeReason({ previous: { result: block(3, 2) }, champion: { result: block(1, 2) } }, 'result'),
    ).toBe('dominates the previous champion: Fail->Pass 3 -> 1, Pass->Fail 2 -> 2');
  });

  it('band decisions: the first of Fail->Pass, Pass->Fail, rejected that differs is the tie-break', () => {
    const reason = (before: Compared, after: Compared) =>
      championChangeReason({ previous: { decided: before }, champion: { decided: after } }, 'decided');
    expect(reason(block(3, 0), block(1, 3))).toBe('fewest Fail->Pass on the front (3 -> 1)');
    expect(reason(block(1, 3), block(1, 2))).toBe('tie on Fail->Pass (1); fewer Pass->Fail (3 -> 2)');
    expect(reason(block(1, 2, 7), block(1, 2, 3))).toBe(
      'tie on Fail->Pass (1) and Pass->Fail (2); fewer rejected by the band (7 -> 3)',
    );
    expect(reason(block(1, 2, 3), block(1, 2, 3))).toBe(
      'tie on Fail->Pass, Pass->Fail and rejections: the front member that finished first',
    );
  });

  it("says the champion rule's judgement: ladder, paired, paired without records", () => {
    const previous = { result: block(3, 2) };
    const champion = { result: block(1, 1) };
    expect(
      championChangeReason(
        { previous, champion, ladder: { margin: 2, recorded: { fail_to_pass_count: 0, pass_to_fail_count: 0 } } },
        'result',
      ),
    ).toBe('champion_rule ladder (margin 2): recorded Fail->Pass 0, Pass->Fail 0, worse on neither');
    const mcnemar = { champion_only: 4, challenger_only: 0, p_better: 0.0625, p_worse: 1 };
    expect(
      championChangeReason(
        {
          previous,
          champion,
          paired: {
            rule: 'paired',
            alpha: 0.05,
            paired: 'ok',
            f2p: { ...mcnemar, better: false, worse: false },
            p2f: { ...mcnemar, p_better: 0.001, better: true, worse: false },
            dominates: true,
            promote: true,
          },
        },
        'result',
      ),
    ).toBe(
      'champion_rule paired: significantly better (McNemar, Holm at alpha 0.05): Fail->Pass p=0.0625, Pass->Fail p=0.0010',
    );
    expect(
      championChangeReason(
        {
          previous,
          champion,
          paired: {
            rule: 'paired',
            alpha: 0.05,
            paired: 'unavailable',
            reason: 'no item records',
            dominates: true,
            promote: true,
          },
        },
        'result',
      ),
    ).toBe('champion_rule paired, unpaired (no item records): decided on the counts');
  });

  it('says so when the row lacks the compared block, rather than inventing counts', () => {
    expect(
      championChangeReason({ previous: { result: block(3, 2) }, champion: { result: block(1, 1) } }, 'decided'),
    ).toBe("decided on counts this ledger lacks ('decided')");
  });

  it('property: for a front whose first member replaced another, the reason names the first key they differ in', () => {
    const member = fc.tuple(fc.nat({ max: 3 }), fc.nat({ max: 3 }), fc.nat({ max: 3 }));
    fc.assert(
      fc.property(fc.array(member, { minLength: 2, maxLength: 6 }), (members) => {
        const front = members.map(([f2p, p2f, rejected], index) => ({
          ...decided(f2p, p2f, rejected),
          finished: `2026-12-05T00:00:0${index}Z`,
        }));
        const first = frontChampion(front, 'decided');
        for (const previous of front) {
          if (previous === first) continue;
          const reason = championChangeReason({ previous, champion: first }, 'decided');
          const [a, b] = [previous.decided, first.decided];
          if (a.fail_to_pass_count !== b.fail_to_pass_count) expect(reason).toMatch(/^fewest Fail->Pass/);
          else if (a.pass_to_fail_count !== b.pass_to_fail_count) expect(reason).toMatch(/fewer Pass->Fail/);
          else if (a.rejected_total !== b.rejected_total) expect(reason).toMatch(/fewer rejected/);
          else expect(reason).toMatch(/finished first/);
          // The first member never comes after the one it replaced.
          expect(b.fail_to_pass_count).toBeLessThanOrEqual(a.fail_to_pass_count);
        }
      }),
    );
  });
});
