import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/contract/errors.js';
import { parseValidationEpoch } from '../../src/contract/validation-epoch.js';
import { contractFixture, thrown } from '../helpers/files-and-errors.js';

describe('parseValidationEpoch', () => {
  it('keeps the example metrics whole', () => {
    const text = readFileSync(contractFixture('validation-epoch-0007.json'), 'utf8');
    expect(parseValidationEpoch(text, 'validation-epoch-0007.json')).toEqual(JSON.parse(text));
  });

  it('refuses anything but an object', () => {
    expect(thrown(ContractError, () => parseValidationEpoch('[1, 2]', 'v.json')).message).toBe(
      'v.json: a JSON object of validation metrics (got a list of 2 items)',
    );
    expect(thrown(ContractError, () => parseValidationEpoch('null', 'v.json')).found).toBe('null');
  });
});
