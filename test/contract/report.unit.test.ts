import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/contract/errors.js';
import { parseReport } from '../../src/contract/report.js';
import type { EvaluatorReport } from '../../src/rules/types.js';
import { contractFixture, thrown } from '../helpers/files-and-errors.js';

const EXAMPLE = readFileSync(contractFixture('report.test.json'), 'utf8');
const BASE = {
  pass_count: 10,
  pass_correct_count: 9,
  fail_count: 5,
  fail_to_pass_count: 1,
  macro_f1: 0.9,
  s_f1: 0.8,
  checkpoint_sha256: 'abc',
};

function problemWith(value: unknown): ContractError {
  return thrown(ContractError, () => parseReport(JSON.stringify(value), 'report.json'));
}

describe('parseReport', () => {
  it('reads the example report and keeps every key, known or not', () => {
    const report: EvaluatorReport = parseReport(EXAMPLE, 'report.test.json');
    expect(report).toEqual(JSON.parse(EXAMPLE));
    expect(report['role']).toBe('test');
    expect(report.decided?.['rejected_total']).toBe(23);
  });

  it('accepts a report from before gate_auc and the band existed', () => {
    expect(parseReport(JSON.stringify(BASE), 'r.json')).toEqual(BASE);
  });

  it('accepts null for gate_auc and decided', () => {
    expect(parseReport(JSON.stringify({ ...BASE, gate_auc: null, decided: null }), 'r.json').decided).toBeNull();
  });

  it('names each missing count', () => {
    const { pass_count: _pass, fail_count: _fail, ...rest } = BASE;
    const error = problemWith(rest);
    expect(error.describeAll().split('\n')).toEqual([
      'report.json: pass_count: a non-negative integer count (got nothing: the field is missing)',
      'report.json: fail_count: a non-negative integer count (got nothing: the field is missing)',
    ]);
    expect(error.message).toBe(
      'report.json: pass_count: a non-negative integer count (got nothing: the field is missing) (and 1 more problem)',
    );
  });

  it('refuses negative and fractional counts', () => {
    expect(problemWith({ ...BASE, fail_count: -1 }).message).toBe(
      'report.json: fail_count: a non-negative integer count (got -1)',
    );
    expect(problemWith({ ...BASE, pass_count: 2.5 }).message).toBe(
      'report.json: pass_count: a non-negative integer count (got 2.5)',
    );
  });

  it('refuses wrong types', () => {
    expect(problemWith({ ...BASE, macro_f1: '0.9' }).message).toBe('report.json: macro_f1: a number (got "0.9")');
    expect(problemWith({ ...BASE, checkpoint_sha256: 7 }).message).toBe(
      'report.json: checkpoint_sha256: a sha256 string (got 7)',
    );
    expect(problemWith({ ...BASE, gate_auc: 1.5 }).message).toBe(
      'report.json: gate_auc: a number between 0 and 1, or null (got 1.5)',
    );
  });

  it('refuses more correct passes than passes and more Fail->Pass than fails', () => {
    const error = problemWith({ ...BASE, pass_correct_count: 11, fail_to_pass_count: 6 });
    expect(error.describeAll().split('\n')).toEqual([
      'report.json: pass_correct_count: at most pass_count (10) (got 11)',
      'report.json: fail_to_pass_count: at most fail_count (5) (got 6)',
    ]);
  });

  it('checks the decided counts the same way', () => {
    const decided = {
      fail_to_pass_count: 6,
      fail_count: 5,
      pass_to_fail_count: 1,
      pass_count: 10,
      pass_correct_count: 12,
    };
    const error = problemWith({ ...BASE, decided });
    expect(error.describeAll().split('\n')).toEqual([
      'report.json: decided.fail_to_pass_count: at most fail_count (5) (got 6)',
      'report.json: decided.pass_correct_count: at most pass_count (10) (got 12)',
    ]);
  });

  it('names a missing decided count', () => {
    const error = problemWith({ ...BASE, decided: { fail_to_pass_count: 1, fail_count: 5, pass_count: 10 } });
    expect(error.message).toBe(
      'report.json: decided.pass_to_fail_count: a non-negative integer count (got nothing: the field is missing)',
    );
  });

  it('refuses a report that is not JSON and names the file', () => {
    const error = thrown(ContractError, () => parseReport('{"pass_count": 3,\n}', 'evals/r.test.json'));
    expect(error.kind).toBe('syntax');
    expect(error.message).toMatch(/^evals\/r\.test\.json:2:1: valid JSON \(got a syntax error: /);
  });

  it('points at NaN when Python wrote it', () => {
    const error = thrown(ContractError, () => parseReport('{"gate_auc": NaN}', 'r.json'));
    expect(error.message).toContain('NaN or Infinity, as Python writes them, is not JSON');
  });

  it('refuses an empty file and a JSON value that is not an object', () => {
    expect(thrown(ContractError, () => parseReport('', 'r.json')).message).toBe(
      'r.json: valid JSON (got an empty file)',
    );
    expect(problemWith([1]).message).toBe('report.json: an evaluator report object (got a list of 1 item)');
  });
});
