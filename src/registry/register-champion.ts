import { hostname } from 'node:os';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { log } from '@temporalio/activity';
import type { LoopPaths, PackageChampion } from '../activities/types.js';
import { championFacts } from './champion-facts.js';
import { asActivityFailure, mlflowClient, MlflowError, type MlflowClient } from './mlflow-rest.js';
import type { MlflowSettings } from './mlflow-settings.js';

export interface RegisterChampionInput {
  readonly loopId: string;
  readonly settings: MlflowSettings;
  readonly paths: LoopPaths;
  readonly champion: PackageChampion;
  /** The package command's log, where it printed the package's path. */
  readonly packageLog: string;
  /** With loop.yaml `artifacts:`: the package's s3:// URI in the store, the model version's source. */
  readonly packageUri?: string;
}

/** A champion registered: the model version made for it (or found, on a retry) and the alias now on it. */
export interface Registration {
  readonly model: string;
  readonly version: string;
  readonly alias: string;
  readonly source: string;
  /** False when a version with this champion's key was there already (a retry, a replay, a second package). */
  readonly created: boolean;
}

/** The tag that makes registering idempotent: one model version per loop and champion. */
const KEY_TAG = 'champion_loop_key';

/** Stable across retries and replays of the activity, and across packaging the same champion again. */
function championKey(loopId: string, champion: PackageChampion): string {
  return `${loopId}/g${champion.generation}/${champion.run_id}/${champion.checkpoint_name}`;
}

/**
 * The model version's source without an artifact store. MLflow refuses a bare local path as a source (it must then lie
 * inside an MLflow run's artifacts), so the package's path is given as a URI naming the host that
 * holds it; `package_path` holds the plain path too.
 */
export function sourceUri(path: string, host = hostname()): string {
  return `champion-loop://${host}${pathToFileURL(path).pathname}`;
}

type Tag = { key: string; value: string };

function quoted(text: string): string {
  return `'${text.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'`;
}

async function ensureModel(client: MlflowClient, name: string): Promise<void> {
  try {
    await client.post('registered-models/create', {
      name,
      description: 'Champions of a champion loop, one version per packaged champion',
    });
  } catch (error) {
    if (!(error instanceof MlflowError && error.errorCode === 'RESOURCE_ALREADY_EXISTS')) throw error;
  }
}

async function versionWithKey(client: MlflowClient, name: string, key: string): Promise<string | null> {
  const found = (await client.get('model-versions/search', {
    filter: `name=${quoted(name)} and tags.${KEY_TAG}=${quoted(key)}`,
    max_results: '10',
  })) as { model_versions?: { version: string }[] };
  const versions = (found.model_versions ?? []).map((v) => v.version).sort((a, b) => Number(a) - Number(b));
  return versions[0] ?? null;
}

/**
 * Register one packaged champion in MLflow: the registered model made if missing, one model
 * version per champion (found again by its key tag on a retry), its tags, and the alias moved to it.
 */
export async function registerChampion(input: RegisterChampionInput): Promise<Registration> {
  const { settings, champion, paths } = input;
  try {
    const client = mlflowClient(settings);
    const facts = await championFacts(champion, paths, input.packageLog);
    const packaged = facts.packagePath ?? resolve(paths.workdir, champion.manifest ?? champion.checkpoint);
    const key = championKey(input.loopId, champion);
    const tags: Tag[] = [
      { key: KEY_TAG, value: key },
      { key: 'loop', value: input.loopId },
      { key: 'generation', value: String(champion.generation) },
      { key: 'run', value: champion.run_id },
      { key: 'checkpoint', value: champion.checkpoint_name },
      { key: 'fail_to_pass_count', value: facts.failToPass },
      { key: 'pass_to_fail_count', value: facts.passToFail },
      { key: 'reserve_verdicts', value: facts.reserveVerdicts },
      { key: 'package_path', value: facts.packagePath ?? '' },
      ...(input.packageUri === undefined ? [] : [{ key: 'package_uri', value: input.packageUri }]),
    ];
    const name = settings.model_name;
    await ensureModel(client, name);
    let version = await versionWithKey(client, name, key);
    const created = version === null;
    // In the store, the package is fetchable from any host (`mlflow models`, `champion-loop artifacts get`).
    const source = input.packageUri ?? sourceUri(packaged);
    if (version === null) {
      const made = (await client.post('model-versions/create', {
        name,
        source,
        tags,
        description: `${champion.run_id} ${champion.checkpoint_name} (generation ${champion.generation}) of loop ${input.loopId}`,
      })) as { model_version: { version: string } };
      version = made.model_version.version;
    } else {
      // Found again: its tags brought up to date (the verdicts so far, a new package path).
      for (const tag of tags) await client.post('model-versions/set-tag', { name, version, ...tag });
    }
    await client.post('registered-models/alias', { name, alias: settings.alias, version });
    log.info('champion registered', { model: name, version, alias: settings.alias, key, created });
    return { model: name, version, alias: settings.alias, source, created };
  } catch (error) {
    throw asActivityFailure(error);
  }
}
