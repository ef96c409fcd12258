import { symlink } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../src/config/errors.js';
import { loadCandidates } from '../../src/config/load-candidates.js';
import { rejection, tempDir, writeFiles } from '../helpers/files-and-errors.js';

describe('loadCandidates', () => {
  it('resolves base configs against the workdir', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'configs/gate/base.yaml': 'hidden: 256\n',
      'loop/candidates.yaml':
        'candidates:\n  - {name: base, base_config: configs/gate/base.yaml}\n  - {name: abs, base_config: ' +
        JSON.stringify(path.join(dir, 'configs/gate/base.yaml')) +
        ', overrides: {lr: 0.1}}\n',
    });
    const candidates = await loadCandidates(path.join(dir, 'loop/candidates.yaml'), dir);
    expect(candidates).toEqual([
      { name: 'base', base_config: path.join(dir, 'configs/gate/base.yaml'), overrides: {} },
      { name: 'abs', base_config: path.join(dir, 'configs/gate/base.yaml'), overrides: { lr: 0.1 } },
    ]);
  });

  it('names the candidate and the path of a base config that does not exist', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'configs/base.yaml': 'hidden: 256\n',
      'candidates.yaml':
        'candidates:\n  - {name: base, base_config: configs/base.yaml}\n  - {name: wide, base_config: configs/wide.yaml}\n',
    });
    const file = path.join(dir, 'candidates.yaml');
    const error = await rejection(ConfigError, loadCandidates(file, dir));
    expect(error.file).toBe(file);
    expect(error.field).toBe('candidates.1.base_config');
    expect(error.message).toBe(
      `${file}:3:18: candidates.1.base_config: an existing base config file for candidate "wide" (got "configs/wide.yaml" at ${path.join(dir, 'configs/wide.yaml')}, which does not exist)`,
    );
  });

  it('a base config that is a loop of symbolic links, or under a file: said so, not "does not exist" (issue 23)', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'configs/plain': 'a file\n',
      'candidates.yaml':
        'candidates:\n  - {name: a, base_config: configs/one.yaml}\n  - {name: b, base_config: configs/plain/b.yaml}\n',
    });
    await symlink('two.yaml', path.join(dir, 'configs/one.yaml'));
    await symlink('one.yaml', path.join(dir, 'configs/two.yaml'));
    const error = await rejection(ConfigError, loadCandidates(path.join(dir, 'candidates.yaml'), dir));
    expect(error.message).toContain(
      `candidates.0.base_config: an existing base config file for candidate "a" (got "configs/one.yaml" at ${path.join(dir, 'configs/one.yaml')}, which is a loop of symbolic links`,
    );
    expect(error.problems[1]?.found).toBe(
      `"configs/plain/b.yaml" at ${path.join(dir, 'configs/plain/b.yaml')}, which cannot exist: a part of its path is a file, not a folder`,
    );
  });

  it('refuses a directory as a base config', async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'configs/x/keep': '',
      'candidates.yaml': 'candidates:\n  - {name: a, base_config: configs/x}\n',
    });
    const error = await rejection(ConfigError, loadCandidates(path.join(dir, 'candidates.yaml'), dir));
    expect(error.found).toContain('which is not a file');
  });

  it('says when the candidates file itself does not exist', async () => {
    const dir = await tempDir();
    const file = path.join(dir, 'nowhere.yaml');
    const error = await rejection(ConfigError, loadCandidates(file, dir));
    expect(error.kind).toBe('missing');
    expect(error.message).toBe(`${file}: an existing file (got no such file)`);
  });

  it('checks the schema before looking for base configs', async () => {
    const dir = await tempDir();
    await writeFiles(dir, { 'candidates.yaml': 'candidates:\n  - {name: ../x, base_config: missing.yaml}\n' });
    const error = await rejection(ConfigError, loadCandidates(path.join(dir, 'candidates.yaml'), dir));
    expect(error.field).toBe('candidates.0.name');
  });

  it("reads overrides with the seed's PyYAML meaning, tagging what JSON (history) would change", async () => {
    const dir = await tempDir();
    await writeFiles(dir, {
      'base.yaml': 'hidden: 256\n',
      'candidates.yaml':
        "candidates:\n  - {name: a, base_config: base.yaml, overrides: {lr: 1.0, rate: 0.5, flag: yes, text: 'yes', when: 2024-01-01, t: 1:30, big: 12345678901234567890, m: {1: x}}}\n",
    });
    const [candidate] = await loadCandidates(path.join(dir, 'candidates.yaml'), dir);
    expect(candidate?.overrides).toEqual({
      lr: { '!!float': '1.0' },
      rate: 0.5,
      flag: true,
      text: 'yes',
      when: { '!!timestamp': '2024-01-01' },
      t: 90,
      big: { '!!int': '12345678901234567890' },
      m: { '!!map': [[1, 'x']] },
    });
  });
});
