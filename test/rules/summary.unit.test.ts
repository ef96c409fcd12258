import { describe, it, expect } from 'vitest';
import { evalSummary } from '../../src/rules/summary.js';
import type { EvalRow } from '../../src/rules/types.js';

const result = {
  fail_to_pass_count: 9,
  fail_count: 188,
  fail_to_pass_rate: 9 / 188,
  pass_to_fail_count: 28,
  pass_correct_count: 372,
  pass_count: 400,
  pass_to_fail_rate: 0.07,
  macro_f1: 0.9,
  s_f1: 0.8,
};

const row: EvalRow = {
  type: 'eval',
  generation: 1,
  role: 'test',
  run_id: 'champ-g001-r0001-a',
  candidate: 'a',
  round: 1,
  checkpoint: 'runs/champ-g001-r0001-a/checkpoint-0003.pt',
  checkpoint_name: 'checkpoint-0003.pt',
  checkpoint_sha256: 'abc',
  epoch: 3,
  config_path: 'configs/gen-001/round-0001/a.yaml',
  status: 'ok',
  validation: null,
  result,
  gate_auc: 0.9,
  gate_curve: null,
  reject_band: null,
  decided: null,
  eval_json: 'evals/champ-g001-r0001-a/checkpoint-0003.test.json',
  finished: '2026-10-01T00:00:00',
};

describe('evalSummary', () => {
  it('keeps the summary keys, in ledger order', () => {
    expect(evalSummary(row)).toEqual({
      run_id: 'champ-g001-r0001-a',
      candidate: 'a',
      epoch: 3,
      checkpoint_name: 'checkpoint-0003.pt',
      checkpoint: 'runs/champ-g001-r0001-a/checkpoint-0003.pt',
      config_path: 'configs/gen-001/round-0001/a.yaml',
      eval_json: 'evals/champ-g001-r0001-a/checkpoint-0003.test.json',
      result,
    });
    expect(Object.keys(evalSummary(row) ?? {})).toEqual([
      'run_id',
      'candidate',
      'epoch',
      'checkpoint_name',
      'checkpoint',
      'config_path',
      'eval_json',
      'result',
    ]);
  });

  it('summarises no row as null', () => {
    expect(evalSummary(null)).toBeNull();
  });
});
