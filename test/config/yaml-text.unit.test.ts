import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/config/errors.js';
import { parseYamlWith, readYamlText } from '../../src/config/yaml-text.js';
import { thrown } from '../helpers/files-and-errors.js';

describe('readYamlText', () => {
  it('names the file, line and column of a syntax error', () => {
    const error = thrown(ConfigError, () => readYamlText('parallel: 5\nlanes: [\n  {host: a\n', 'loop.yaml'));
    expect(error.kind).toBe('syntax');
    expect(error.file).toBe('loop.yaml');
    expect(error.line).toBeGreaterThanOrEqual(2);
    expect(error.column).toBeGreaterThanOrEqual(1);
    expect(error.message).toMatch(/^loop\.yaml:\d+:\d+: valid YAML \(got a syntax error: .+\)/);
  });

  it('refuses a key written twice', () => {
    const error = thrown(ConfigError, () => readYamlText('parallel: 5\nparallel: 6\n', 'loop.yaml'));
    expect(error.message).toBe('loop.yaml:2:1: valid YAML (got a syntax error: Map keys must be unique)');
  });

  it('refuses tabs as indentation with the line they are on', () => {
    const error = thrown(ConfigError, () => readYamlText('lanes:\n\t- host: a\n', 'loop.yaml'));
    expect(error.line).toBe(2);
  });

  it('refuses a file of several documents', () => {
    const error = thrown(ConfigError, () => readYamlText('a: 1\n---\nb: 2\n', 'loop.yaml'));
    expect(error.message).toMatch(
      /^loop\.yaml:2:1: valid YAML \(got a syntax error: Source contains multiple documents/,
    );
  });

  it('refuses a file whose aliases expand without end', () => {
    const bomb = [
      'a: &a [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]',
      'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]',
      'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]',
      'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c, *c]',
      '',
    ].join('\n');
    const error = thrown(ConfigError, () => readYamlText(bomb, 'loop.yaml'));
    expect(error.message).toMatch(/^loop\.yaml: valid YAML \(got a document that cannot be expanded: /);
  });

  it('finds the line a field was written on', () => {
    const yaml = readYamlText('parallel: 5\nlanes:\n  - host: a\n    device: 0\n', 'loop.yaml');
    expect(yaml.locate(['parallel'])).toEqual({ line: 1, column: 1 });
    expect(yaml.locate(['lanes', 0, 'device'])).toEqual({ line: 4, column: 5 });
    expect(yaml.locate(['lanes', 0, 'slots'])).toEqual({ line: 3, column: 5 });
    expect(yaml.locate(['data_root'])).toBeUndefined();
  });
});

describe('parseYamlWith', () => {
  it('puts problems in file order with their lines', () => {
    const schema = z.strictObject({ a: z.string(), b: z.int() });
    const error = thrown(ConfigError, () => parseYamlWith(schema, 'b: x\na: 1\n', 'f.yaml'));
    expect(error.problems.map((problem) => [problem.field, problem.line])).toEqual([
      ['b', 1],
      ['a', 2],
    ]);
    expect(error.message).toBe('f.yaml:1:1: b: an integer (got "x") (and 1 more problem)');
  });
});
