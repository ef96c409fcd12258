import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/contract/errors.js';
import { isCheckpointName, parseSelection } from '../../src/contract/selection.js';
import { contractFixture, thrown } from '../helpers/files-and-errors.js';

describe('parseSelection', () => {
  it('reads the example selection', () => {
    const text = readFileSync(contractFixture('selection.json'), 'utf8');
    expect(parseSelection(text, 'selection.json')).toEqual({
      checkpoint: 'checkpoint-0007.pt',
      epoch: 7,
      false_negatives: 6,
    });
  });

  it('needs only the checkpoint and keeps unknown keys', () => {
    expect(parseSelection('{"checkpoint": "model-12.ckpt", "note": "x"}', 's.json')).toEqual({
      checkpoint: 'model-12.ckpt',
      note: 'x',
    });
  });

  it('refuses a checkpoint name without an epoch suffix', () => {
    const error = thrown(ContractError, () => parseSelection('{"checkpoint": "best.pt"}', 'runs/r/selection.json'));
    expect(error.field).toBe('checkpoint');
    expect(error.message).toBe(
      'runs/r/selection.json: checkpoint: a checkpoint file name whose stem ends in -NNNN (its epoch), e.g. checkpoint-0007.pt (got "best.pt")',
    );
  });

  it('refuses a missing checkpoint and negative false negatives', () => {
    const error = thrown(ContractError, () => parseSelection('{"false_negatives": -2}', 's.json'));
    expect(error.problems.map((problem) => problem.field)).toEqual(['checkpoint', 'false_negatives']);
  });
});

describe('isCheckpointName', () => {
  it('reads the epoch from the stem as Python does', () => {
    expect(isCheckpointName('checkpoint-0007.pt')).toBe(true);
    expect(isCheckpointName('checkpoint-7')).toBe(true);
    expect(isCheckpointName('checkpoint-0007.tar.gz')).toBe(false);
    expect(isCheckpointName('checkpoint.pt')).toBe(false);
    expect(isCheckpointName('checkpoint-x.pt')).toBe(false);
  });

  it('refuses paths: the name is joined to the run directory', () => {
    expect(isCheckpointName('sub/checkpoint-0007.pt')).toBe(false);
    expect(isCheckpointName('..\\checkpoint-0007.pt')).toBe(false);
  });
});
