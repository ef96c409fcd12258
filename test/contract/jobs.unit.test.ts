import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/contract/errors.js';
import { parseJobs } from '../../src/contract/jobs.js';
import { contractFixture, thrown } from '../helpers/files-and-errors.js';

describe('parseJobs', () => {
  it('reads the example jobs file', () => {
    const jobs = parseJobs(readFileSync(contractFixture('jobs.json'), 'utf8'), 'jobs.json');
    expect(jobs).toHaveLength(1);
    expect(jobs[0]?.band_scores).toBe(
      'artifacts/training-runs/champ-g001-r0001-base/validation-epoch-0004.scores.jsonl',
    );
  });

  it('accepts the config and its sha256 that teacher batches carry', () => {
    const job = {
      checkpoint: 'c.pt',
      output: 'o.json',
      scores_output: 's.jsonl',
      config: 'c.yaml',
      config_sha256: 'ab',
    };
    expect(parseJobs(JSON.stringify([job]), 'jobs.json')).toEqual([job]);
  });

  it('names the job and the field that is missing', () => {
    const error = thrown(ContractError, () => parseJobs('[{"checkpoint": "c.pt", "output": "o.json"}]', 'jobs.json'));
    expect(error.message).toBe('jobs.json: 0.scores_output: a file path (got nothing: the field is missing)');
  });

  it('refuses an empty list', () => {
    expect(thrown(ContractError, () => parseJobs('[]', 'jobs.json')).message).toBe(
      'jobs.json: a non-empty list of jobs (got an empty list)',
    );
  });
});
