import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ContractError } from '../../src/contract/errors.js';
import {
  readJobs,
  readManifest,
  readPareto,
  readReport,
  readScores,
  readSelection,
  readValidationEpoch,
} from '../../src/contract/read.js';
import { contractFixture, rejection, tempDir, writeFiles } from '../helpers/files-and-errors.js';

describe('the contract readers', () => {
  it('read every example file', async () => {
    await expect(readReport(contractFixture('report.test.json'))).resolves.toMatchObject({ pass_count: 412 });
    await expect(readScores(contractFixture('scores.test.jsonl'))).resolves.toHaveLength(3);
    await expect(readSelection(contractFixture('selection.json'))).resolves.toMatchObject({ epoch: 7 });
    await expect(readPareto(contractFixture('pareto.json'))).resolves.toMatchObject({ checkpoints: [{}, {}, {}] });
    await expect(readManifest(contractFixture('manifest.json'))).resolves.toMatchObject({ members: [{}, {}] });
    await expect(readValidationEpoch(contractFixture('validation-epoch-0007.json'))).resolves.toMatchObject({
      epoch: 7,
    });
    await expect(readJobs(contractFixture('jobs.json'))).resolves.toHaveLength(1);
  });

  it('tell a missing file from a broken one', async () => {
    const dir = await tempDir();
    const missing = path.join(dir, 'report.json');
    const error = await rejection(ContractError, readReport(missing));
    expect(error.kind).toBe('missing');
    expect(error.message).toBe(`${missing}: an existing file (got no such file)`);
  });

  it('name the file of a report that is not JSON', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'report.json': 'Traceback (most recent call last):\n' });
    const file = path.join(dir, 'report.json');
    const error = await rejection(ContractError, readReport(file));
    expect(error.kind).toBe('syntax');
    expect(error.file).toBe(file);
    expect(error.message.startsWith(`${file}`)).toBe(true);
    expect(error.message).toContain('valid JSON');
  });

  it('name the line of a bad scores row', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 's.jsonl': '{"margin": 1, "target": 1}\n{"margin": 1, "target": true}\n' });
    const file = path.join(dir, 's.jsonl');
    const error = await rejection(ContractError, readScores(file));
    expect(error.message).toBe(`${file}:2: target: 0 or 1 (1 = pass item) (got true)`);
  });

  it('refuse a directory where a file belongs', async () => {
    const dir = await tempDir();
    const error = await rejection(ContractError, readSelection(dir));
    expect(error.kind).toBe('unreadable');
    expect(error.message).toBe(`${dir}: a file (got a directory)`);
  });
});
