import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { laneQueue } from '../../src/config/lanes.js';
import { loadCandidates } from '../../src/config/load-candidates.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import { rejection, tempDir, writeFiles } from '../helpers/files-and-errors.js';

const EXAMPLE = fileURLToPath(new URL('../../examples/loop.seed.yaml', import.meta.url));
const LANES = 'lanes:\n  - {host: gpu-a, device: 0}\n';

describe('loadLoopConfig', () => {
  it('loads the seed example placed one folder below a stack repository', async () => {
    const repo = await tempDir();
    await writeFiles(repo, {
      'champion/loop.yaml': await readFile(EXAMPLE, 'utf8'),
      'configs/research/champion/candidates.yaml':
        'candidates:\n  - {name: base, base_config: configs/gate/base.yaml}\n',
      'configs/gate/base.yaml': 'hidden: 256\n',
      'data/20260912_for_training/items.json': '[]\n',
    });
    const config = await loadLoopConfig(path.join(repo, 'champion/loop.yaml'));
    expect(config.workdir).toBe(repo);
    expect(config.state_dir).toBe(path.join(repo, 'artifacts/champion-loop'));
    expect(config.runs_root).toBe(path.join(repo, 'artifacts/training-runs'));
    expect(config.data_root).toBe(path.join(repo, 'data/20260912_for_training'));
    expect(config.candidates).toBe(path.join(repo, 'configs/research/champion/candidates.yaml'));
    expect(config.teacher_path).toBe(path.join(repo, 'artifacts/teachers/gen-{generation}/insample.jsonl'));
    expect(config.score_cache_dir).toBeNull();
    expect(config.lanes).toEqual([
      { host: 'gpu-a', device: 0, slots: 1, min_free_gib: 30 },
      { host: 'gpu-a', device: 1, slots: 1, min_free_gib: 40, kill_grace: '25s' },
    ]);
    expect(config.lanes.map((lane) => laneQueue(lane.host, lane.device))).toEqual([
      'champion-loop.gpu-a.gpu0',
      'champion-loop.gpu-a.gpu1',
    ]);
    expect(config.commands.train).toEqual(['.venv/bin/python', '-m', 'raina_laya.choice_train']);
    expect(config.commands.package).toEqual(['.venv/bin/python', 'scripts/package_champion.py']);
    expect(config.timeouts.schedule_to_start).toBe('10m');
    expect(config.retries).toEqual({ train: 3, evaluate: 3, package: 1, lost_lane: 10 });
    const candidates = await loadCandidates(config.candidates, config.workdir);
    expect(candidates.map((candidate) => candidate.base_config)).toEqual([path.join(repo, 'configs/gate/base.yaml')]);
  });

  it('runs in the directory of loop.yaml when no workdir is given', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'loop.yaml': `data_root: ${dir}\ncandidates: candidates.yaml\nscore_cache_dir: cache\n${LANES}`,
      'candidates.yaml': 'candidates: []\n',
    });
    const config = await loadLoopConfig(path.join(dir, 'loop.yaml'));
    expect(config.workdir).toBe(dir);
    expect(config.data_root).toBe(dir);
    expect(config.candidates).toBe(path.join(dir, 'candidates.yaml'));
    expect(config.score_cache_dir).toBe(path.join(dir, 'cache'));
  });

  it('says which candidates file is missing and where it was looked for', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'loop.yaml': `data_root: .\ncandidates: conf/candidates.yaml\n${LANES}` });
    const file = path.join(dir, 'loop.yaml');
    const error = await rejection(ConfigError, loadLoopConfig(file));
    expect(error.message).toBe(
      `${file}:2:1: candidates: an existing candidates file (got "conf/candidates.yaml" at ${path.join(dir, 'conf/candidates.yaml')}, which does not exist)`,
    );
  });

  it('refuses a workdir that does not exist', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'loop.yaml': `workdir: ../no-such-dir-here\ndata_root: d\ncandidates: c.yaml\n${LANES}` });
    const error = await rejection(ConfigError, loadLoopConfig(path.join(dir, 'loop.yaml')));
    expect(error.field).toBe('workdir');
    expect(error.line).toBe(1);
    expect(error.expected).toContain('an existing directory');
    expect(error.found).toContain('which does not exist');
  });

  it('says when loop.yaml itself does not exist', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'loop.yaml');
    const error = await rejection(ConfigError, loadLoopConfig(file));
    expect(error.kind).toBe('missing');
    expect(error.message).toBe(`${file}: an existing file (got no such file)`);
  });

  it('names the file in a schema error before touching the disk', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'loop.yaml': `data_root: d\ncandidates: c.yaml\nparallel: 0\n${LANES}` });
    const file = path.join(dir, 'loop.yaml');
    const error = await rejection(ConfigError, loadLoopConfig(file));
    expect(error.message).toBe(`${file}:3:1: parallel: an integer >= 1 (got 0)`);
  });
});
