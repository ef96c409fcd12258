import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/contract/errors.js';
import { parseManifest } from '../../src/contract/manifest.js';
import { contractFixture, thrown } from '../helpers/files-and-errors.js';

describe('parseManifest', () => {
  it('reads the example manifest', () => {
    const manifest = parseManifest(readFileSync(contractFixture('manifest.json'), 'utf8'), 'manifest.json');
    expect(manifest.members.map((member) => member.checkpoint)).toEqual([
      'artifacts/training-runs/champ-g001-r0001-base/checkpoint-0007.pt',
      'artifacts/training-runs/champ-g001-r0001-wide/checkpoint-0005.pt',
    ]);
  });

  it('names a member without a config', () => {
    const error = thrown(ContractError, () => parseManifest('{"members": [{"checkpoint": "c.pt"}]}', 'm.json'));
    expect(error.message).toBe('m.json: members.0.config: a file path (got nothing: the field is missing)');
  });

  it('refuses a manifest without members', () => {
    expect(thrown(ContractError, () => parseManifest('{"members": []}', 'm.json')).field).toBe('members');
  });
});
