import { describe, it, expect } from 'vitest';
import { SUMMARY_KEYS } from '../../src/rules/types.js';

describe('SUMMARY_KEYS', () => {
  it('lists the seed summary fields in the seed order', () => {
    expect(SUMMARY_KEYS).toEqual(['run_id', 'candidate', 'epoch', 'checkpoint_name', 'checkpoint', 'config_path', 'eval_json', 'result']);
  });
});
