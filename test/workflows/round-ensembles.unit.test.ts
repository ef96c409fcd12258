import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  addMember,
  emptyRoundEnsembles,
  foldFinishedRounds,
  openRound,
  rankMembers,
  type EnsembleMember,
} from '../../src/workflows/round-ensembles.js';

const member = (round: number, name: string, auc: number | null, fn = 0): EnsembleMember => ({
  run_id: `champ-g001-r${String(round).padStart(4, '0')}-${name}`,
  checkpoint_name: 'checkpoint-0003.pt',
  config: `configs/${name}.yaml`,
  checkpoint: `runs/${name}/checkpoint-0003.pt`,
  validation_gate_auc: auc,
  validation_fail_to_pass: fn,
  round,
});

describe('rankMembers', () => {
  it('ranks by validation AUC, puts runs without one after by fewer Fail->Pass, and breaks ties by round and run id', () => {
    const ranked = rankMembers([
      member(2, 'b', null, 3),
      member(1, 'a', 0.9),
      member(1, 'c', null, 1),
      member(1, 'b', 0.95),
      member(2, 'a', 0.9),
    ]);
    expect(ranked.map((m) => m.run_id)).toEqual([
      'champ-g001-r0001-b',
      'champ-g001-r0001-a',
      'champ-g001-r0002-a',
      'champ-g001-r0001-c',
      'champ-g001-r0002-b',
    ]);
  });
});

describe('foldFinishedRounds', () => {
  it('offers no ensemble before round 3 and one per finished round from then on', () => {
    let state = emptyRoundEnsembles;
    for (let round = 1; round <= 4; round += 1)
      for (const name of ['a', 'b']) state = addMember(state, member(round, name, 0.5 + round / 10));
    const { state: after, due } = foldFinishedRounds(state, (round) => round <= 3);
    expect(due.map((d) => d.round)).toEqual([3]);
    expect(due[0]?.members).toHaveLength(6);
    expect(Object.keys(after.recent)).toEqual(['4']);
  });

  it('waits for the earliest unfinished round even if later ones look finished', () => {
    let state = emptyRoundEnsembles;
    for (let round = 1; round <= 4; round += 1) state = addMember(state, member(round, 'a', 0.9));
    const { due } = foldFinishedRounds(state, (round) => round !== 2);
    expect(due).toEqual([]);
  });

  it('skips a round with fewer than two members', () => {
    let state = emptyRoundEnsembles;
    state = addMember(state, member(3, 'a', 0.9));
    expect(foldFinishedRounds(state, () => true).due).toEqual([]);
  });

  it('keeps exactly the 24 best of all rounds so far, however the rounds were folded', () => {
    const members = fc.array(
      fc.record({
        round: fc.integer({ min: 1, max: 6 }),
        name: fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g'),
        auc: fc.option(fc.integer({ min: 0, max: 20 }).map((n) => n / 20)),
        fn: fc.integer({ min: 0, max: 5 }),
      }),
      { maxLength: 60 },
    );
    fc.assert(
      fc.property(members, fc.integer({ min: 3, max: 6 }), (specs, upTo) => {
        const unique = new Map(specs.map((s) => [`${s.round}-${s.name}`, member(s.round, s.name, s.auc, s.fn)]));
        let state = emptyRoundEnsembles;
        for (let round = 1; round <= 6; round += 1) state = openRound(state, round);
        for (const m of unique.values()) state = addMember(state, m);
        // Fold round by round, as rounds finish one after another.
        let due: ReturnType<typeof foldFinishedRounds>['due'] = [];
        for (let last = 1; last <= upTo; last += 1) {
          const step = foldFinishedRounds(state, (round) => round <= last);
          state = step.state;
          due = [...due, ...step.due];
        }
        const brute = rankMembers([...unique.values()].filter((m) => m.round <= upTo)).slice(0, 24);
        const ofLast = due.find((d) => d.round === upTo);
        if (brute.length >= 2) expect(ofLast?.members).toEqual(brute);
        else expect(ofLast).toBeUndefined();
      }),
    );
  });
});
