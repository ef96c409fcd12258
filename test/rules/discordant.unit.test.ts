import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import { discordantItems, pairItems, type ScoredItem } from '../../src/rules/discordant.js';

const item = (target: 0 | 1, margin: number, id?: string | number): ScoredItem =>
  id === undefined ? { target, margin } : { target, margin, id };

describe('discordantItems', () => {
  it('counts, per class, the items only one of the two gets wrong (by line)', () => {
    // Fail items (target 0): wrong when passed (margin > 0). Pass items: wrong at margin <= 0.
    const champion = [item(0, 1), item(0, 1), item(0, -1), item(1, 0), item(1, 2)];
    const challenger = [item(0, -1), item(0, 1), item(0, 1), item(1, 1), item(1, 2)];
    expect(discordantItems(champion, challenger)).toEqual({
      f2p: { champion_only: 1, challenger_only: 1 },
      p2f: { champion_only: 1, challenger_only: 0 },
    });
  });

  it('pairs by id when every row has one, on the items both scored', () => {
    const champion = [item(0, 1, 'a'), item(0, 1, 'b'), item(1, -1, 7)];
    const challenger = [item(1, 1, 7), item(0, -1, 'a'), item(0, -1, 'z')];
    expect(discordantItems(champion, challenger)).toEqual({
      f2p: { champion_only: 1, challenger_only: 0 },
      p2f: { champion_only: 1, challenger_only: 0 },
    });
  });

  it('refuses files it cannot pair, saying what would make them pairable', () => {
    expect(() => pairItems([item(0, 1)], [item(0, 1), item(1, 1)])).toThrow(/give every row an `id`/);
    expect(() => pairItems([item(0, 1, 'a')], [item(1, 1, 'a')])).toThrow(/target 0 in one scores file and 1/);
  });

  it('differs in error counts exactly as the discordant items say', () => {
    const rows = fc.array(
      fc.tuple(fc.constantFrom<0 | 1>(0, 1), fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 })),
      {
        maxLength: 60,
      },
    );
    fc.assert(
      fc.property(rows, (triples) => {
        const champion = triples.map(([target, margin]) => item(target, margin));
        const challenger = triples.map(([target, , margin]) => item(target, margin));
        const errors = (items: ScoredItem[], target: 0 | 1) =>
          items.filter((i) => i.target === target && (target === 0 ? i.margin > 0 : i.margin <= 0)).length;
        const d = discordantItems(champion, challenger);
        expect(errors(champion, 0) - errors(challenger, 0)).toBe(d.f2p.champion_only - d.f2p.challenger_only);
        expect(errors(champion, 1) - errors(challenger, 1)).toBe(d.p2f.champion_only - d.p2f.challenger_only);
      }),
    );
  });
});
