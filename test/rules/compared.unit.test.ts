import { describe, it, expect } from 'vitest';
import { comparedBlock } from '../../src/rules/compared.js';

const result = { fail_to_pass_count: 1, pass_to_fail_count: 2 };
const decided = { fail_to_pass_count: 0, pass_to_fail_count: 1, rejected_total: 7 };

describe('comparedBlock', () => {
  it('returns the block the key names', () => {
    expect(comparedBlock({ result, decided }, 'result')).toBe(result);
    expect(comparedBlock({ result, decided }, 'decided')).toBe(decided);
  });

  it('refuses a row whose block is null', () => {
    expect(() => comparedBlock({ result, decided: null }, 'decided')).toThrow(/no 'decided' block/);
  });

  it('refuses a row that lacks the block', () => {
    expect(() => comparedBlock({ decided }, 'result')).toThrow(/no 'result' block/);
  });
});
