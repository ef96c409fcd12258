import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readCandidates } from '../../src/activities/read-candidates.js';
import { baseConfig, fixtureLoop } from './fixture-loop.js';
import { writeFile } from 'node:fs/promises';

describe('readCandidates', () => {
  it('reads the candidates with base configs resolved against the workdir', async () => {
    const paths = await fixtureLoop();
    const base = await baseConfig(paths, 'base', 'epochs: 4\n');
    const file = join(paths.workdir, 'candidates.yaml');
    await writeFile(
      file,
      'candidates:\n  - name: base\n    base_config: configs/base.yaml\n    overrides: {fixture_quality: 0.7}\n',
    );
    expect(await readCandidates({ file, workdir: paths.workdir })).toEqual({
      ok: true,
      candidates: [{ name: 'base', base_config: base, overrides: { fixture_quality: 0.7 } }],
    });
  });

  it('answers an invalid file with an error naming the file and the field', async () => {
    const paths = await fixtureLoop();
    const file = join(paths.workdir, 'candidates.yaml');
    await writeFile(file, 'candidates:\n  - name: base\n    base_config: configs/missing.yaml\n');
    const read = await readCandidates({ file, workdir: paths.workdir });
    expect(read.ok).toBe(false);
    expect(read.ok ? '' : read.error).toMatch(
      new RegExp(`^${file}:3:\\d+: candidates\\.0\\.base_config: an existing base config file`),
    );
  });

  it('answers a missing file with an error naming it', async () => {
    const paths = await fixtureLoop();
    const file = join(paths.workdir, 'nope.yaml');
    expect(await readCandidates({ file, workdir: paths.workdir })).toEqual({
      ok: false,
      error: `${file}: an existing file (got no such file)`,
    });
  });
});
