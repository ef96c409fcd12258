import { createHash } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { teacherFile } from '../config/candidate.js';
import { dumpPyYaml, fromJsonSafe, loadPyYaml, type PyMap } from '../config/pyyaml/index.js';
import { expandGeneration } from '../rules/ids.js';
import { exists, moveAside } from './support/move-aside.js';
import { isStale } from './support/owner.js';
import { configFile } from './support/paths.js';
import { ApplicationFailure } from '@temporalio/common';
import type { FileRef } from '../artifacts/file-ref.js';
import { ArtifactStoreError } from '../artifacts/object-store.js';
import { uploadOnce } from './support/step-files.js';
import type { ArtifactSettings } from '../artifacts/store-settings.js';
import { STORE_UNAVAILABLE } from '../contract/failures.js';
import { dataFingerprint } from '../artifacts/data-fingerprint.js';
import { badInput, CONFIG_ERROR, SPLIT_MISSING } from './support/step-errors.js';
import type { Candidate, PrepareRunInput, PreparedRun } from './types.js';

/**
 * Writes the job config of one run (docs/behaviour.md, the job config) and says whether its run directory
 * is stale: there already, and not marked as this owner's by an earlier attempt of trainRun.
 * The same inputs give the same file; a different file at that path is moved aside first.
 */
export async function prepareRun(input: PrepareRunInput): Promise<PreparedRun> {
  const { paths, candidate, generation, round } = input;
  // A job config naming a split that is not there would fail its trainer; the training run builds it again first.
  if (!(await exists(input.split))) {
    throw badInput(
      `the split of generation ${generation} is missing: ${input.split} (was the state dir emptied?)`,
      SPLIT_MISSING,
    );
  }
  const text = configText(await readBaseConfig(candidate), candidate, generation, input.split, input.seed);
  const path = configFile(paths.stateDir, generation, round, candidate.name);
  await writeConfig(path, text);
  // With a store the lane may be another host: its job config and split (a student's teacher file too) go there by content.
  const student = teacherFile(candidate, generation, paths.workdir);
  const inputs =
    input.artifacts === undefined
      ? {}
      : {
          inputs: await uploadInputs(input.artifacts, [path, input.split, ...(student === null ? [] : [student])]),
          data: await dataFingerprint(paths.dataRoot),
        };
  return {
    configPath: path,
    configSha256: createHash('sha256').update(text, 'utf8').digest('hex'),
    stale: await isStale(paths, input.runId, input.owner),
    ...inputs,
  };
}

/**
 * The job's inputs in the store, once: a store that fails is the workflow's to wait for
 * (StoreUnavailable), as a local activity must not hold its workflow task for long.
 */
async function uploadInputs(settings: ArtifactSettings, paths: readonly string[]): Promise<FileRef[]> {
  try {
    return await uploadOnce(settings, paths);
  } catch (error) {
    if (error instanceof ArtifactStoreError)
      throw ApplicationFailure.create({ message: error.message, type: STORE_UNAVAILABLE, nonRetryable: true });
    throw error;
  }
}

/**
 * Base config + overrides (string values `{generation}`-expanded) + split + seed, dumped in key
 * order: overridden keys keep their place, new keys follow, as Python's dict.update leaves them.
 * The bytes are the seed's `yaml.safe_dump(config, sort_keys=False)` (src/config/pyyaml/).
 */
export function configText(
  base: Map<unknown, unknown>,
  candidate: Candidate,
  generation: number,
  split: string,
  seed: number,
): string {
  const config = new Map<unknown, unknown>(base);
  for (const [key, value] of Object.entries(candidate.overrides)) {
    // Overrides arrive as JSON: values JSON would change (1.0, dates) come tagged (src/config/pyyaml/json.ts).
    config.set(key, typeof value === 'string' ? expandGeneration(value, generation) : fromJsonSafe(value));
  }
  config.set('split', split);
  config.set('seed', seed);
  return dumpPyYaml(config);
}

/** The candidate's base config as PyYAML's `safe_load` reads it (YAML 1.1: `yes` is true, `1:30` is 90). */
export async function readBaseConfig(candidate: Candidate): Promise<PyMap> {
  let text: string;
  try {
    text = await readFile(candidate.base_config, 'utf8');
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'does not exist' : (error as Error).message;
    throw badInput(
      `base config of candidate "${candidate.name}" cannot be read: ${candidate.base_config} ${reason}`,
      CONFIG_ERROR,
    );
  }
  let value: unknown;
  try {
    // Maps, not objects: keys like `1` keep their place and type, as PyYAML keeps them.
    value = loadPyYaml(text);
  } catch (error) {
    throw badInput(
      `base config of candidate "${candidate.name}" is not valid YAML: ${candidate.base_config}: ${(error as Error).message}`,
      CONFIG_ERROR,
    );
  }
  if (!(value instanceof Map)) {
    throw badInput(
      `base config of candidate "${candidate.name}" must be a YAML mapping: ${candidate.base_config}`,
      CONFIG_ERROR,
    );
  }
  return value;
}

async function writeConfig(path: string, text: string): Promise<void> {
  if (await exists(path)) {
    if ((await readFile(path, 'utf8')) === text) {
      return;
    }
    await moveAside(path);
  }
  await mkdir(dirname(path), { recursive: true });
  // Exclusive create: a half-written file from a crash differs, so the next attempt moves it aside.
  await writeFile(path, text, { flag: 'wx' });
}
