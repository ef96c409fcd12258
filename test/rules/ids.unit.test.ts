import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import {
  checkpointEpoch,
  checkpointStem,
  ensembleRunId,
  expandGeneration,
  padGeneration,
  padRound,
  roundEnsembleRunId,
  roundManifestName,
  runIdFor,
  zeroPad,
} from '../../src/rules/ids.js';

describe('zeroPad', () => {
  it('pads like Python format specs, sign first and never truncating', () => {
    expect(zeroPad(7, 3)).toBe('007');
    expect(zeroPad(0, 4)).toBe('0000');
    expect(zeroPad(12345, 3)).toBe('12345');
    expect(zeroPad(-5, 3)).toBe('-05');
  });

  it('refuses a number that is not an integer', () => {
    expect(() => zeroPad(1.5, 3)).toThrow(RangeError);
    expect(() => zeroPad(Number.NaN, 3)).toThrow(RangeError);
  });
});

describe('padGeneration and padRound', () => {
  it('spell a generation with three digits and a round with four', () => {
    expect(padGeneration(1)).toBe('001');
    expect(padRound(1)).toBe('0001');
  });
});

describe('run and ensemble ids', () => {
  it('name a candidate run by zero-padded generation and round', () => {
    expect(runIdFor(1, 2, 'baseline')).toBe('champ-g001-r0002-baseline');
    expect(runIdFor(14, 123, 'wide-lr')).toBe('champ-g014-r0123-wide-lr');
    expect(runIdFor(1000, 10000, 'x')).toBe('champ-g1000-r10000-x');
  });

  it('name the teacher-member ensemble of a generation', () => {
    expect(ensembleRunId(7)).toBe('ens-g007-teacher');
  });

  it('name the round ensemble and its manifest', () => {
    expect(roundEnsembleRunId(12, 3)).toBe('ens-g012-r0003-all');
    expect(roundManifestName(3)).toBe('round-0003-all.json');
  });

  it('give every generation, round and candidate its own run id', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999 }),
        fc.integer({ min: 1, max: 9999 }),
        fc.stringMatching(/^[a-z][a-z0-9_-]{0,11}$/),
        (generation, round, name) => {
          const match = /^champ-g(\d{3})-r(\d{4})-(.+)$/.exec(runIdFor(generation, round, name));
          expect(match?.slice(1)).toEqual([String(generation).padStart(3, '0'), String(round).padStart(4, '0'), name]);
        },
      ),
    );
  });
});

describe('expandGeneration', () => {
  it('replaces every {generation} by the three-digit generation', () => {
    expect(expandGeneration('artifacts/teachers/gen-{generation}/insample.jsonl', 5)).toBe(
      'artifacts/teachers/gen-005/insample.jsonl',
    );
    expect(expandGeneration('{generation}-{generation}', 42)).toBe('042-042');
  });

  it('leaves other braces and dollar signs alone', () => {
    expect(expandGeneration('{gen} {round} $& {generation}', 3)).toBe('{gen} {round} $& 003');
    expect(expandGeneration('no placeholder', 3)).toBe('no placeholder');
  });
});

describe('checkpointEpoch', () => {
  it('reads the epoch from the -NNNN suffix of the stem', () => {
    expect(checkpointEpoch('checkpoint-0007.pt')).toBe(7);
    expect(checkpointEpoch('checkpoint-0123.pt')).toBe(123);
    expect(checkpointEpoch('model-best-0040.ckpt')).toBe(40);
    expect(checkpointEpoch('runs/champ-g001-r0001-a/checkpoint-0002.pt')).toBe(2);
    expect(checkpointEpoch('checkpoint-12345')).toBe(12345);
  });

  it('refuses a name without an epoch suffix with a clear error', () => {
    expect(() => checkpointEpoch('teacher-members.json')).toThrow(/'teacher-members.json' has no -NNNN epoch suffix/);
    expect(() => checkpointEpoch('checkpoint.pt')).toThrow(/no -NNNN epoch suffix/);
    expect(() => checkpointEpoch('checkpoint-best.pt')).toThrow(/no -NNNN epoch suffix/);
    expect(() => checkpointEpoch('checkpoint-0007.tar.gz')).toThrow(/no -NNNN epoch suffix/);
  });

  it('reads back every four-digit epoch it is given', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 9999 }), (epoch) => {
        expect(checkpointEpoch(`checkpoint-${padRound(epoch)}.pt`)).toBe(epoch);
      }),
    );
  });
});

describe('checkpointStem', () => {
  it('drops the directory and only the last suffix, as Python Path.stem does', () => {
    expect(checkpointStem('a/b/checkpoint-0007.pt')).toBe('checkpoint-0007');
    expect(checkpointStem('x.tar.gz')).toBe('x.tar');
    expect(checkpointStem('.pt')).toBe('.pt');
    expect(checkpointStem('name.')).toBe('name.');
    expect(checkpointStem('plain')).toBe('plain');
  });
});
