import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ConfigError } from '../../src/config/errors.js';
import { checkAgainst, describeValue, formatProblem, formatProblems } from '../../src/config/problems.js';

describe('formatProblem', () => {
  it('writes file, field, what was expected and what was found', () => {
    expect(formatProblem('loop.yaml', { field: 'lanes.1.device', expected: 'an integer >= 0', found: '-1' })).toBe(
      'loop.yaml: lanes.1.device: an integer >= 0 (got -1)',
    );
  });

  it('adds line and column after the file when they are known', () => {
    expect(
      formatProblem('loop.yaml', { field: 'parallel', expected: 'an integer >= 1', found: '0', line: 4, column: 11 }),
    ).toBe('loop.yaml:4:11: parallel: an integer >= 1 (got 0)');
  });

  it('leaves out the field for a problem with the whole file', () => {
    expect(formatProblem('r.json', { field: '', expected: 'valid JSON', found: 'an empty file' })).toBe(
      'r.json: valid JSON (got an empty file)',
    );
  });
});

describe('formatProblems', () => {
  it('counts the problems after the first', () => {
    const one = { field: 'a', expected: 'x' };
    expect(formatProblems('f', [one])).toBe('f: a: x');
    expect(formatProblems('f', [one, one])).toBe('f: a: x (and 1 more problem)');
    expect(formatProblems('f', [one, one, one])).toBe('f: a: x (and 2 more problems)');
  });
});

describe('ConfigError', () => {
  it('keeps the first problem in its fields and every problem in its list', () => {
    const error = new ConfigError('loop.yaml', 'invalid', [
      { field: 'parallel', expected: 'an integer >= 1', found: '0', line: 3, column: 11 },
      { field: 'lanes', expected: 'a non-empty list' },
    ]);
    expect(error.name).toBe('ConfigError');
    expect(error).toBeInstanceOf(Error);
    expect(error.file).toBe('loop.yaml');
    expect(error.field).toBe('parallel');
    expect(error.expected).toBe('an integer >= 1');
    expect(error.found).toBe('0');
    expect(error.line).toBe(3);
    expect(error.kind).toBe('invalid');
    expect(error.problems).toHaveLength(2);
    expect(error.message).toBe('loop.yaml:3:11: parallel: an integer >= 1 (got 0) (and 1 more problem)');
    expect(error.describeAll().split('\n')).toEqual([
      'loop.yaml:3:11: parallel: an integer >= 1 (got 0)',
      'loop.yaml: lanes: a non-empty list',
    ]);
  });
});

describe('describeValue', () => {
  it('quotes strings and names containers by size', () => {
    expect(describeValue('python -m x', 'yaml')).toBe('"python -m x"');
    expect(describeValue([1, 2], 'yaml')).toBe('a list of 2 items');
    expect(describeValue([], 'json')).toBe('an empty list');
    expect(describeValue({ a: 1 }, 'yaml')).toBe('a mapping with a');
    expect(describeValue({ a: 1 }, 'json')).toBe('an object with a');
    expect(describeValue(null, 'yaml')).toBe('an empty value (null)');
    expect(describeValue(undefined, 'json')).toBe('nothing');
  });

  it('cuts long strings short', () => {
    expect(describeValue('x'.repeat(200), 'json').length).toBeLessThan(80);
  });
});

describe('checkAgainst', () => {
  const schema = z.strictObject({ parallel: z.int().min(1), name: z.string(), tags: z.array(z.string()).min(1) });

  it('phrases zod issues as what was expected', () => {
    const result = checkAgainst(schema, { parallel: 0, tags: [] }, 'yaml');
    expect(result.success).toBe(false);
    expect(
      result.success ? [] : result.problems.map(({ field, expected, found }) => ({ field, expected, found })),
    ).toEqual([
      { field: 'parallel', expected: 'an integer >= 1', found: '0' },
      { field: 'name', expected: 'a string', found: 'nothing: the field is missing' },
      { field: 'tags', expected: 'a non-empty list', found: 'an empty list' },
    ]);
  });

  it('suggests the known field an unknown one was probably meant to be', () => {
    const result = checkAgainst(schema, { parallel: 1, name: 'a', tags: ['x'], paralel: 2 }, 'yaml');
    expect(result.success ? [] : result.problems).toEqual([
      { path: ['paralel'], field: 'paralel', expected: 'no such field; did you mean "parallel"?', found: '2' },
    ]);
  });

  it('lists the known fields when no known field is close', () => {
    const result = checkAgainst(schema, { parallel: 1, name: 'a', tags: ['x'], colour: 'red' }, 'yaml');
    expect(result.success ? '' : result.problems[0]?.expected).toBe(
      'no such field; known fields: parallel, name, tags',
    );
  });

  it('returns the parsed data when the value fits', () => {
    expect(checkAgainst(schema, { parallel: 2, name: 'a', tags: ['x'] }, 'json')).toEqual({
      success: true,
      data: { parallel: 2, name: 'a', tags: ['x'] },
    });
  });
});
