import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parseCandidates } from '../../src/config/candidates.js';
import { ConfigError } from '../../src/config/errors.js';
import { contractFixture, thrown } from '../helpers/files-and-errors.js';

function problemWith(text: string): ConfigError {
  return thrown(ConfigError, () => parseCandidates(text, 'candidates.yaml'));
}

const SAFE_NAME = "must be a safe file name: letters, digits, '_', '-', '.'";

describe('parseCandidates', () => {
  it('reads the example candidates file', () => {
    const text = readFileSync(contractFixture('candidates.yaml'), 'utf8');
    expect(parseCandidates(text, 'candidates.yaml')).toEqual([
      { name: 'base', base_config: 'configs/gate/base.yaml', overrides: {} },
      { name: 'wide', base_config: 'configs/gate/base.yaml', overrides: { hidden: 512, lr: 0.0005 } },
      {
        name: 'student',
        base_config: 'configs/gate/base.yaml',
        overrides: { gate_soft_targets: 'artifacts/teachers/gen-{generation}/insample.jsonl' },
      },
    ]);
  });

  it('gives a candidate without overrides an empty set of them', () => {
    expect(parseCandidates('candidates:\n  - {name: a, base_config: a.yaml}\n', 'c.yaml')).toEqual([
      { name: 'a', base_config: 'a.yaml', overrides: {} },
    ]);
  });

  it('refuses up front a name too long for the file names built from it, and takes one at the limit', () => {
    const file = (name: string) => `candidates:\n  - {name: ${name}, base_config: base.yaml}\n`;
    const problem = problemWith(file('a'.repeat(129)));
    expect(problem.message).toContain('candidates.0.name');
    expect(problem.message).toContain('at most 128 characters (got 129)');
    expect(problem.message).toContain('255-byte name limit');
    expect(parseCandidates(file('a'.repeat(128)), 'candidates.yaml')[0]?.name).toHaveLength(128);
  });

  it('accepts an empty list: the loop then idles', () => {
    expect(parseCandidates('candidates: []\n', 'c.yaml')).toEqual([]);
  });

  it('names a duplicate candidate and where it first appeared', () => {
    const error = problemWith(
      'candidates:\n  - {name: base, base_config: a.yaml}\n  - {name: wide, base_config: a.yaml}\n  - {name: base, base_config: b.yaml}\n',
    );
    expect(error.field).toBe('candidates.2.name');
    expect(error.message).toBe(
      'candidates.yaml:4:6: candidates.2.name: a unique name: duplicate candidate name "base" (also candidates.0.name) (got "base")',
    );
  });

  it.each([['../x'], ['a/b'], [''], ['.'], ['..'], ['-rf'], ['has space']])(
    'refuses the unsafe name %j and says why',
    (name) => {
      const error = problemWith(`candidates:\n  - name: ${JSON.stringify(name)}\n    base_config: a.yaml\n`);
      expect(error.field).toBe('candidates.0.name');
      expect(error.expected).toContain(SAFE_NAME);
      expect(error.message).toBe(
        `candidates.yaml:2:5: candidates.0.name: ${error.expected} (got ${JSON.stringify(name)})`,
      );
    },
  );

  it('accepts names with letters, digits, dots, dashes and underscores', () => {
    const names = parseCandidates('candidates:\n  - {name: wide_2.lr-5e4, base_config: a.yaml}\n', 'c.yaml').map(
      (c) => c.name,
    );
    expect(names).toEqual(['wide_2.lr-5e4']);
  });

  it('refuses unknown keys at the top and in a candidate', () => {
    const error = problemWith('candidates:\n  - {name: a, base_config: a.yaml, overide: {lr: 1}}\nextra: 1\n');
    expect(error.describeAll().split('\n')).toEqual([
      'candidates.yaml:2:36: candidates.0.overide: no such field; did you mean "overrides"? (got a mapping with lr)',
      'candidates.yaml:3:1: extra: no such field; known fields: candidates (got 1)',
    ]);
  });

  it('names missing fields and wrong types', () => {
    const error = problemWith(
      'candidates:\n  - {name: a}\n  - {name: b, base_config: b.yaml, overrides: [lr]}\n  - just-a-name\n',
    );
    expect(error.describeAll().split('\n')).toEqual([
      'candidates.yaml:2:5: candidates.0.base_config: a path to the base config file (got nothing: the field is missing)',
      'candidates.yaml:3:36: candidates.1.overrides: a mapping of config keys to values, e.g. {hidden: 512} (got a list of 1 item)',
      'candidates.yaml:4:5: candidates.2: a candidate: {name, base_config, overrides} (got "just-a-name")',
    ]);
  });

  it('refuses a file without a candidates list', () => {
    expect(problemWith('candidates: base\n').message).toBe(
      'candidates.yaml:1:1: candidates: a list of candidates, e.g. [{name: base, base_config: configs/base.yaml}] (got "base")',
    );
    expect(problemWith('').message).toBe('candidates.yaml: a mapping with a "candidates" list (got an empty document)');
  });

  it('names the line and column of broken YAML', () => {
    const error = problemWith('candidates:\n  - name: a\n   base_config: x\n');
    expect(error.kind).toBe('syntax');
    expect(error.message).toMatch(/^candidates\.yaml:\d+:\d+: valid YAML \(got a syntax error: /);
  });
});
