import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareRun } from '../../src/activities/prepare-run.js';
import type { LoopPaths, PrepareRunInput } from '../../src/activities/types.js';
import { pyyamlDump, pyyamlUnavailable } from '../helpers/pyyaml.js';
import { baseConfig, fixtureLoop } from './fixture-loop.js';

async function input(paths: LoopPaths, overrides: Record<string, unknown> = {}): Promise<PrepareRunInput> {
  const base = await baseConfig(paths, 'base', 'epochs: 4\nlr: 0.001\nlayers:\n- 64\n- 32\nhidden: 128\n');
  // The generation's split, as buildSplit left it.
  const split = join(paths.stateDir, 'splits', 'gen-007.yaml');
  await mkdir(dirname(split), { recursive: true });
  await writeFile(split, 'items: []\n');
  return {
    paths,
    candidate: {
      name: 'wide',
      base_config: base,
      overrides: { hidden: 512, teacher: 'artifacts/gen-{generation}/t.jsonl', ...overrides },
    },
    generation: 7,
    round: 3,
    seed: 20260931,
    split,
    runId: 'champ-g007-r0003-wide',
    owner: 'champion-loop/demo/g007/r0003/wide',
  };
}

describe('prepareRun', () => {
  it('refuses a split that is gone (its state dir emptied), so that the training run builds it again first', async () => {
    const paths = await fixtureLoop();
    const request = await input(paths);
    await rm(request.split);
    await expect(prepareRun(request)).rejects.toMatchObject({
      type: 'SplitMissing',
      nonRetryable: true,
      message: `the split of generation 7 is missing: ${request.split} (was the state dir emptied?)`,
    });
  });

  it('writes base config, overrides, split and seed in key order with {generation} expanded', async () => {
    const paths = await fixtureLoop();
    const prepared = await prepareRun(await input(paths));
    expect(prepared.configPath).toBe(join(paths.stateDir, 'configs', 'gen-007', 'round-0003', 'wide.yaml'));
    const text = await readFile(prepared.configPath, 'utf8');
    expect(text).toBe(
      [
        'epochs: 4',
        'lr: 0.001',
        'layers:',
        '- 64',
        '- 32',
        'hidden: 512',
        'teacher: artifacts/gen-007/t.jsonl',
        `split: ${join(paths.stateDir, 'splits', 'gen-007.yaml')}`,
        'seed: 20260931',
        '',
      ].join('\n'),
    );
    expect(prepared.configSha256).toBe(createHash('sha256').update(text).digest('hex'));
    expect(prepared.stale).toBe(false);
  });

  it('gives the same file and sha256 on a retry without moving anything aside', async () => {
    const paths = await fixtureLoop();
    const request = await input(paths);
    const first = await prepareRun(request);
    const again = await prepareRun(request);
    expect(again).toEqual(first);
    expect(await readdir(dirname(first.configPath))).toEqual(['wide.yaml']);
  });

  it('moves a different existing config aside before writing the new one', async () => {
    const paths = await fixtureLoop();
    const request = await input(paths);
    const path = join(paths.stateDir, 'configs', 'gen-007', 'round-0003', 'wide.yaml');
    await mkdir(dirname(path), { recursive: true });
    await writeFile(path, 'epochs: 1\n');
    const prepared = await prepareRun(request);
    expect((await readdir(dirname(path))).sort()).toEqual(['wide.yaml', 'wide.yaml.aside-1']);
    expect(await readFile(`${path}.aside-1`, 'utf8')).toBe('epochs: 1\n');
    expect(await readFile(prepared.configPath, 'utf8')).toContain('hidden: 512');
  });

  it('marks a run directory that exists without our owner marker as stale', async () => {
    const paths = await fixtureLoop();
    const request = await input(paths);
    await mkdir(join(paths.runsRoot, request.runId), { recursive: true });
    expect((await prepareRun(request)).stale).toBe(true);
    await mkdir(join(paths.stateDir, 'owners'), { recursive: true });
    await writeFile(join(paths.stateDir, 'owners', request.runId), 'champion-loop/other/g007/r0003/wide\n');
    expect((await prepareRun(request)).stale).toBe(true);
  });

  it('does not mark a run directory stale when its owner marker names this owner', async () => {
    const paths = await fixtureLoop();
    const request = await input(paths);
    await mkdir(join(paths.runsRoot, request.runId), { recursive: true });
    await mkdir(join(paths.stateDir, 'owners'), { recursive: true });
    await writeFile(join(paths.stateDir, 'owners', request.runId), `${request.owner}\n`);
    expect((await prepareRun(request)).stale).toBe(false);
  });

  it('refuses a base config that is not a YAML mapping, naming the candidate and the file', async () => {
    const paths = await fixtureLoop();
    const request = await input(paths);
    await writeFile(request.candidate.base_config, '- just\n- a list\n');
    await expect(prepareRun(request)).rejects.toThrow(
      `base config of candidate "wide" must be a YAML mapping: ${request.candidate.base_config}`,
    );
  });

  it.skipIf(pyyamlUnavailable() !== null)(
    'writes the bytes the seed writes (PyYAML safe_dump) and records their sha256, as the seed does',
    async () => {
      const paths = await fixtureLoop();
      const base = [
        'flag: yes',
        "flag_text: 'yes'",
        'off_switch: off',
        'time: 1:30',
        "time_text: '1:30'",
        'lr: 1.0',
        'tiny: 1e-5',
        'tinier: 1.0e-5',
        'octal: 012',
        'hex_text: "0x1F"',
        'when: 2024-01-01',
        'big: .inf',
        'nothing: ~',
        `note: ${'a long sentence that the emitter folds at eighty characters '.repeat(2).trim()}`,
        'name: "caf\u00e9 \u4e2d"',
        'layers:',
        '  - 64',
        '  - {units: 32, act: on}',
        'empty: {}',
        "'yes': key",
        '',
      ].join('\n');
      const request = await input(paths, { nested: { path: 'gen-{generation}/x' }, lr: 0.5 });
      await writeFile(request.candidate.base_config, base);
      const prepared = await prepareRun(request);
      const text = await readFile(prepared.configPath, 'utf8');
      const job = {
        overrides: request.candidate.overrides,
        generation: request.generation,
        split: request.split,
        seed: request.seed,
      };
      const [seed] = pyyamlDump([{ text: base, job }]);
      expect(seed?.ok).toBe(true);
      if (seed?.ok !== true) return;
      expect(text).toBe(seed.text);
      expect(prepared.configSha256).toBe(seed.sha256);
      expect(text).toContain("flag: true\nflag_text: 'yes'\noff_switch: false\ntime: 90\ntime_text: '1:30'\n");
    },
  );
});
