import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { padGeneration } from '../rules/ids.js';
import { exists } from './support/move-aside.js';
import { logsDir } from './support/paths.js';
import { uploadStepFiles } from './support/step-files.js';
import type { EnsembleManifest, EnsembleManifestInput } from './types.js';

/**
 * Writes an ensemble's manifest, `ensembles/gen-GGG/<name>` (docs/behaviour.md, teachers and
 * ensembles); a manifest an earlier attempt left is reused, never rewritten.
 */
export async function writeEnsembleManifest(input: EnsembleManifestInput): Promise<EnsembleManifest> {
  const path = join(input.paths.stateDir, 'ensembles', `gen-${padGeneration(input.generation)}`, input.name);
  if (!(await exists(path))) {
    await mkdir(dirname(path), { recursive: true });
    const members = input.members.map((member) => ({ config: member.config, checkpoint: member.checkpoint }));
    await writeFile(path, `${JSON.stringify({ members }, null, 2)}\n`, { flag: 'wx' });
  }
  const sha256 = createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
  if (input.artifacts === undefined) return { path, sha256 };
  const log = join(logsDir(input.paths.stateDir), `ensemble-gen-${padGeneration(input.generation)}.log`);
  const [manifest] = await uploadStepFiles(input.artifacts, [path], log);
  // Members share their split (and may share configs): each file once.
  const files = [...(manifest === undefined ? [] : [manifest]), ...(input.files ?? [])];
  return {
    path,
    sha256,
    files: files.filter((ref, index) => files.findIndex((other) => other.path === ref.path) === index),
  };
}
