import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import { parseLoopConfig } from '../../src/config/loop-config.js';
import { rejection, tempDir, thrown, writeFiles } from '../helpers/files-and-errors.js';

// Issue 18, "inputs taken on trust": what loop.yaml says is checked, and a refusal says what is wrong.

const LANES = 'lanes:\n  - {host: gpu-a, device: 0}\n';

describe('loop.yaml inputs', () => {
  it('refuses a data_root that does not exist, naming the file, the field and what was expected', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'loop.yaml': `candidates: c.yaml\ndata_root: no-such-data\n${LANES}`,
      'c.yaml': 'candidates: []\n',
    });
    const file = path.join(dir, 'loop.yaml');
    const error = await rejection(ConfigError, loadLoopConfig(file));
    expect(error.message).toBe(
      `${file}:2:1: data_root: an existing directory holding the training data (got "no-such-data" at ${path.join(dir, 'no-such-data')}, which does not exist)`,
    );
  });

  it('refuses a data_root that is a file', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'loop.yaml': `candidates: c.yaml\ndata_root: c.yaml\n${LANES}`,
      'c.yaml': 'candidates: []\n',
    });
    const error = await rejection(ConfigError, loadLoopConfig(path.join(dir, 'loop.yaml')));
    expect(error.field).toBe('data_root');
    expect(error.found).toContain('which is not a directory');
  });

  it('says a number is beyond what a number can hold', () => {
    const problem = (line: string) =>
      thrown(ConfigError, () => parseLoopConfig(`data_root: d\ncandidates: c.yaml\n${line}\n${LANES}`, 'loop.yaml'))
        .message;
    expect(problem('parallel: 1e400')).toBe(
      'loop.yaml:3:1: parallel: an integer >= 1 (got a number beyond what a number can hold (it reads as Infinity))',
    );
    expect(problem('parallel: 99999999999999999999')).toBe(
      'loop.yaml:3:1: parallel: an integer >= 1 (got 100000000000000000000, beyond the largest whole number held exactly (9007199254740991))',
    );
    expect(problem('min_free_gib: -1e400')).toContain('a negative number beyond what a number can hold');
  });
});
