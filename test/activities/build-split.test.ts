import { readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/common';
import { afterEach, describe, expect, it } from 'vitest';
import { buildSplit } from '../../src/activities/build-split.js';
import { setSubprocessEnv } from '../../src/activities/support/step-scope.js';
import { fixtureCommands, fixtureLoop, readJson } from './fixture-loop.js';

interface Split {
  seed: number;
  roles: Record<string, string[]>;
}

afterEach(() => {
  setSubprocessEnv({});
});

describe('buildSplit', () => {
  it('builds the generation split with development, validation, test and reserve roles', async () => {
    const paths = await fixtureLoop();
    const { path } = await buildSplit({ paths, commands: fixtureCommands, generation: 1, splitSeed: 20261201 });
    expect(path).toBe(join(paths.stateDir, 'splits', 'gen-001.yaml'));
    const split = await readJson<Split>(path);
    expect(split.seed).toBe(20261201);
    expect(Object.keys(split.roles).sort()).toEqual(['development', 'reserve', 'test', 'validation']);
    expect(split.roles.validation).toHaveLength(60);
    const log = await readFile(join(paths.stateDir, 'logs', 'split-gen-001.log'), 'utf8');
    expect(log).toContain('--validation-fraction","0.10"');
    expect(log.match(/--test-fraction","0.10"/g)).toHaveLength(2);
  });

  it('reuses a final split that is already there', async () => {
    const paths = await fixtureLoop();
    const input = { paths, commands: fixtureCommands, generation: 2, splitSeed: 20261202 };
    const first = await buildSplit(input);
    const text = await readFile(first.path, 'utf8');
    setSubprocessEnv({ FIXTURE_FAIL_SPLIT: 'fail' });
    const again = await buildSplit(input);
    expect(again.path).toBe(first.path);
    expect(await readFile(again.path, 'utf8')).toBe(text);
  });

  it('moves partial files of an earlier attempt aside before building', async () => {
    const paths = await fixtureLoop();
    const splits = join(paths.stateDir, 'splits');
    await mkdir(splits, { recursive: true });
    await writeFile(join(splits, 'gen-001-devval.yaml'), '{"half": ');
    await writeFile(join(splits, 'gen-001.yaml.tmp'), '{"half": ');
    await buildSplit({ paths, commands: fixtureCommands, generation: 1, splitSeed: 20261201 });
    expect((await readdir(splits)).sort()).toEqual([
      'gen-001-devval.yaml',
      'gen-001-devval.yaml.aside-1',
      'gen-001-test.yaml',
      'gen-001.yaml',
      'gen-001.yaml.tmp.aside-1',
    ]);
  });

  it('fails naming the command and its exit code, and leaves no final file', async () => {
    const paths = await fixtureLoop();
    setSubprocessEnv({ FIXTURE_FAIL_SPLIT: 'fail:test' });
    const promise = buildSplit({ paths, commands: fixtureCommands, generation: 1, splitSeed: 20261201 });
    await expect(promise).rejects.toBeInstanceOf(ApplicationFailure);
    await expect(promise).rejects.toThrow(
      /split generation failed: loop\.yaml commands\.split_carve \(split carve test\) ended with exit code 3/,
    );
    expect(await readdir(join(paths.stateDir, 'splits'))).not.toContain('gen-001.yaml');
  });

  it('builds the same split again after a crash of the reserve carve', async () => {
    const paths = await fixtureLoop();
    const input = { paths, commands: fixtureCommands, generation: 1, splitSeed: 20261201 };
    setSubprocessEnv({ FIXTURE_FAIL_SPLIT: 'crash:reserve' });
    await expect(buildSplit(input)).rejects.toThrow(/ended with signal SIGKILL/);
    setSubprocessEnv({});
    const { path } = await buildSplit(input);
    const reference = await fixtureLoop();
    const clean = await buildSplit({ ...input, paths: reference });
    expect(await readFile(path, 'utf8')).toBe(await readFile(clean.path, 'utf8'));
    expect(await readdir(join(paths.stateDir, 'splits'))).toContain('gen-001.yaml.tmp.aside-1');
  });
});
