import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/contract/errors.js';
import { parsePareto } from '../../src/contract/pareto.js';
import { contractFixture, thrown } from '../helpers/files-and-errors.js';

describe('parsePareto', () => {
  it('reads the example front', () => {
    const pareto = parsePareto(readFileSync(contractFixture('pareto.json'), 'utf8'), 'pareto.json');
    expect(pareto.checkpoints.map((entry) => entry.checkpoint)).toEqual([
      'checkpoint-0004.pt',
      'checkpoint-0007.pt',
      'checkpoint-0011.pt',
    ]);
  });

  it('names the entry whose checkpoint has no epoch', () => {
    const error = thrown(ContractError, () =>
      parsePareto('{"checkpoints": [{"checkpoint": "checkpoint-0004.pt"}, {"checkpoint": "last.pt"}]}', 'pareto.json'),
    );
    expect(error.field).toBe('checkpoints.1.checkpoint');
    expect(error.message).toContain('whose stem ends in -NNNN');
  });

  it('refuses a file without a checkpoints list', () => {
    expect(thrown(ContractError, () => parsePareto('{"front": []}', 'pareto.json')).message).toBe(
      'pareto.json: checkpoints: a list of {checkpoint} objects (got nothing: the field is missing)',
    );
  });
});
