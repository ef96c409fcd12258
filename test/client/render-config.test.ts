// `champion-loop render-config`: the job config bytes the loop writes, as the seed writes them.
import { execFile } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { renderConfig } from '../../src/client/render-config.js';
import { tempDir, writeFiles } from '../helpers/files-and-errors.js';
import { pyyamlDump, pyyamlUnavailable } from '../helpers/pyyaml.js';

const BIN = fileURLToPath(new URL('../../bin/champion-loop.js', import.meta.url));
const unavailable = pyyamlUnavailable();
if (unavailable !== null) console.warn(unavailable);

const BASE =
  "epochs: 4\nlr: 1.0\nflag: yes\nflag_text: 'yes'\nwhen: 2024-01-01\ntime: 1:30\nlayers:\n- 64\n- {units: 32}\nempty: []\n";
const OVERRIDES =
  "{lr: 0.5, dropout: 1.0, resume: off, teacher: 'artifacts/gen-{generation}/t.jsonl', nested: {p: 'gen-{generation}'}}";

async function loop(): Promise<{ dir: string; file: string }> {
  const dir = await tempDir();
  await writeFiles(dir, {
    'loop.yaml': 'data_root: data\ncandidates: candidates.yaml\nlanes:\n  - {host: gpu-a, device: 0}\n',
    'candidates.yaml': `candidates:\n  - {name: base, base_config: configs/base.yaml}\n  - {name: wide, base_config: configs/base.yaml, overrides: ${OVERRIDES}}\n`,
    'configs/base.yaml': BASE,
    'data/items.json': '[]\n',
  });
  return { dir, file: path.join(dir, 'loop.yaml') };
}

describe.skipIf(unavailable !== null)('render-config', () => {
  it('prints exactly the bytes the seed writes for the candidate, generation and round, and nothing else', async () => {
    const { dir, file } = await loop();
    const { stdout, stderr } = await promisify(execFile)(
      process.execPath,
      [BIN, 'render-config', '--config', file, '--candidate', 'wide', '--generation', '7', '--round', '3'],
      { cwd: dir },
    );
    const split = path.join(dir, 'artifacts/champion-loop/splits/gen-007.yaml');
    // The seed's config_for: safe_load the base and candidates files, update, split, seed, safe_dump.
    const [seed] = pyyamlDump([
      { text: BASE, job: { overridesYaml: OVERRIDES, generation: 7, split, seed: 20260928 + 3 } },
    ]);
    expect(seed?.ok).toBe(true);
    expect(stdout).toBe(seed?.ok === true ? seed.text : '');
    expect(stderr).toBe('');
    expect(stdout).toContain("lr: 0.5\nflag: true\nflag_text: 'yes'\nwhen: 2024-01-01\ntime: 90\n");
    expect(stdout).toContain(
      'dropout: 1.0\nresume: false\nteacher: artifacts/gen-007/t.jsonl\nnested:\n  p: gen-{generation}\n',
    );
    expect(stdout.endsWith(`split: ${split}\nseed: 20260931\n`)).toBe(true);
  }, 60_000);
});

describe('render-config without PyYAML', () => {
  it('names the candidates there are when the name is not one of them', async () => {
    const { file, dir } = await loop();
    await expect(renderConfig(file, 'narrow', 1, 1)).rejects.toThrow(
      `no candidate "narrow" in ${path.join(dir, 'candidates.yaml')} (candidates: base, wide)`,
    );
  });
});
