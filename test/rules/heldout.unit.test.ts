import { describe, it, expect } from 'vitest';
import { heldoutResult } from '../../src/rules/heldout.js';

const report = {
  pass_count: 400,
  pass_correct_count: 372,
  fail_count: 188,
  fail_to_pass_count: 9,
  macro_f1: 0.91,
  s_f1: 0.88,
  checkpoint_sha256: 'abc',
  gate_auc: 0.95,
};

describe('heldoutResult', () => {
  it('derives Pass->Fail from the correct passes and keeps both rates', () => {
    expect(heldoutResult(report)).toEqual({
      fail_to_pass_count: 9,
      fail_count: 188,
      fail_to_pass_rate: 9 / 188,
      pass_to_fail_count: 28,
      pass_correct_count: 372,
      pass_count: 400,
      pass_to_fail_rate: 28 / 400,
      macro_f1: 0.91,
      s_f1: 0.88,
    });
  });

  it('keeps exactly the fields the ledger stores, in ledger order', () => {
    expect(Object.keys(heldoutResult(report))).toEqual([
      'fail_to_pass_count',
      'fail_count',
      'fail_to_pass_rate',
      'pass_to_fail_count',
      'pass_correct_count',
      'pass_count',
      'pass_to_fail_rate',
      'macro_f1',
      's_f1',
    ]);
  });

  it('refuses a report without fail items, as the Python loop does by dividing by zero', () => {
    expect(() => heldoutResult({ ...report, fail_count: 0, fail_to_pass_count: 0 })).toThrow(RangeError);
  });

  it('refuses a report without pass items', () => {
    expect(() => heldoutResult({ ...report, pass_count: 0, pass_correct_count: 0 })).toThrow(RangeError);
  });
});
