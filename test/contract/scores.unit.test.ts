import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/contract/errors.js';
import { parseScores } from '../../src/contract/scores.js';
import { contractFixture, thrown } from '../helpers/files-and-errors.js';

describe('parseScores', () => {
  it('reads the example scores and keeps the item ids', () => {
    const rows = parseScores(readFileSync(contractFixture('scores.test.jsonl'), 'utf8'), 'scores.test.jsonl');
    expect(rows).toEqual([
      { id: 'easy-ham-1/00001', target: 1, margin: 2.31 },
      { id: 'spam-1/00042', target: 0, margin: -1.87 },
      { id: 'spam-2/00007', target: 0, margin: 0.12 },
    ]);
  });

  it('skips blank lines and Windows line ends', () => {
    expect(parseScores('{"margin": 1, "target": 1}\r\n\r\n{"margin": -1, "target": 0}\r\n', 's.jsonl')).toHaveLength(2);
  });

  it('reads an empty file as no rows', () => {
    expect(parseScores('', 's.jsonl')).toEqual([]);
  });

  it('names the line and field of a bad row', () => {
    const error = thrown(ContractError, () =>
      parseScores('{"margin": 1, "target": 1}\n{"margin": "high", "target": 1}\n', 'evals/x.test.scores.jsonl'),
    );
    expect(error.line).toBe(2);
    expect(error.field).toBe('margin');
    expect(error.message).toBe('evals/x.test.scores.jsonl:2: margin: a finite number (got "high")');
  });

  it('refuses a target other than 0 or 1 and a missing margin', () => {
    const error = thrown(ContractError, () => parseScores('{"target": 2}\n', 's.jsonl'));
    expect(error.describeAll().split('\n')).toEqual([
      's.jsonl:1: margin: a finite number (got nothing: the field is missing)',
      's.jsonl:1: target: 0 or 1 (1 = pass item) (got 2)',
    ]);
  });

  it('names the line of a row that is not JSON and counts the other problems', () => {
    const error = thrown(ContractError, () =>
      parseScores('{"margin": 1, "target": 1}\n{"margin": 1, "target"\n[1]\n', 's.jsonl'),
    );
    expect(error.kind).toBe('syntax');
    expect(error.line).toBe(2);
    expect(error.message).toMatch(/^s\.jsonl:2(:\d+)?: valid JSON \(got a syntax error: .*\) \(and 1 more problem\)$/);
    expect(error.problems[1]).toMatchObject({ line: 3, expected: 'one JSON object per line' });
  });
});
