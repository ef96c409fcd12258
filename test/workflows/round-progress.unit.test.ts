import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { openRoundProgress, roundFinished, runFinal, type RoundProgress } from '../../src/workflows/round-progress.js';

/** A generation's life: rounds planned in order with some runs each, runs becoming final in any order. */
type Event = { readonly kind: 'open'; readonly runs: number } | { readonly kind: 'final'; readonly pick: number };

const events = fc.array(
  fc.oneof(
    fc.record({ kind: fc.constant('open' as const), runs: fc.integer({ min: 0, max: 3 }) }),
    fc.record({ kind: fc.constant('final' as const), pick: fc.nat() }),
  ),
  { maxLength: 40 },
);

/** Plays the events on the fold and on a plain model: the list of pending runs' rounds. */
function play(list: readonly Event[]): { progress: RoundProgress; current: number; pending: number[] } {
  let progress: RoundProgress = {};
  let current = 0;
  const pending: number[] = [];
  for (const event of list) {
    if (event.kind === 'open') {
      current += 1;
      progress = openRoundProgress(progress, current, event.runs);
      for (let run = 0; run < event.runs; run += 1) pending.push(current);
    } else if (pending.length > 0) {
      const [round] = pending.splice(event.pick % pending.length, 1) as [number];
      progress = runFinal(progress, round);
    }
  }
  return { progress, current, pending };
}

describe('round progress', () => {
  it('finishes a round once a later round is planned and no run of it or an earlier round is pending', () => {
    fc.assert(
      fc.property(events, (list) => {
        const { progress, current, pending } = play(list);
        for (let round = 1; round <= current + 1; round += 1) {
          const expected = round < current && !pending.some((pendingRound) => pendingRound <= round);
          expect(
            roundFinished(progress, round, current),
            `round ${round} of ${current}, pending ${JSON.stringify(pending)}`,
          ).toBe(expected);
        }
      }),
    );
  });

  it('counts the pending runs of each round', () => {
    fc.assert(
      fc.property(events, (list) => {
        const { progress, current, pending } = play(list);
        for (let round = 1; round <= current; round += 1) {
          expect(progress[String(round)] ?? 0).toBe(pending.filter((pendingRound) => pendingRound === round).length);
        }
      }),
    );
  });

  it('adds to a round planned twice, ignores a final run of a round never planned, and never goes below zero', () => {
    const twice = openRoundProgress(openRoundProgress({}, 1, 2), 1, 1);
    expect(twice).toEqual({ '1': 3 });
    expect(runFinal(twice, 7)).toBe(twice);
    expect(runFinal(runFinal({ '1': 1 }, 1), 1)).toEqual({ '1': 0 });
  });

  it('never finishes the latest round, nor one after it', () => {
    const progress = openRoundProgress(openRoundProgress({}, 1, 0), 2, 0);
    expect(roundFinished(progress, 1, 2)).toBe(true);
    expect(roundFinished(progress, 2, 2)).toBe(false);
    expect(roundFinished(progress, 3, 2)).toBe(false);
  });

  it('is a pure fold: the input is never changed', () => {
    const progress = Object.freeze({ '1': 2 });
    expect(openRoundProgress(progress, 2, 1)).toEqual({ '1': 2, '2': 1 });
    expect(runFinal(progress, 1)).toEqual({ '1': 1 });
    expect(progress).toEqual({ '1': 2 });
  });
});
