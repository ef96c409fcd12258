import { describe, it, expect } from 'vitest';
import { DEFAULT_BASE_SEED } from '../../src/rules/constants.js';
import { splitSeed, trainingSeed } from '../../src/rules/seeds.js';

describe('trainingSeed', () => {
  it('counts up from 20260928 by round', () => {
    expect(trainingSeed(1)).toBe(20260929);
    expect(trainingSeed(12)).toBe(20260940);
  });
});

describe('splitSeed', () => {
  it('counts up from the base seed by generation', () => {
    expect(splitSeed(DEFAULT_BASE_SEED, 1)).toBe(20261201);
    expect(splitSeed(100, 7)).toBe(107);
  });
});
