import { readdirSync, readFileSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { onTestFinished } from 'vitest';
import { prepareRun } from '../../src/activities/prepare-run.js';
import { buildSplit } from '../../src/activities/build-split.js';
import type { LoopPaths, StepCommands, TrainInput, TrainOutcome } from '../../src/activities/types.js';
import type { RunRow } from '../../src/ledger/rows.js';
import { runIdFor } from '../../src/rules/ids.js';
import { trainingSeed } from '../../src/rules/seeds.js';

/** The fixture training stack's folder. */
const STACK = fileURLToPath(new URL('../fixture-stack/', import.meta.url));

/** The fixture trainer's marker line for "no eligible checkpoint". */
export const NO_CHECKPOINT = 'no eligible checkpoint';

const node = (script: string): string[] => [process.execPath, join(STACK, script)];

/** Every step of the subprocess contract, run by the fixture stack. */
export const fixtureCommands: StepCommands = {
  train: node('train.mjs'),
  evaluate: node('evaluate.mjs'),
  evaluate_ensemble: node('evaluate-ensemble.mjs'),
  split_generate: node('split-generate.mjs'),
  split_carve: node('split-carve.mjs'),
  teacher_scores: node('teacher-scores.mjs'),
  package: node('package.mjs'),
};

/** A loop's folders in a fresh temporary directory (removed after the test), with a small data set. */
export async function fixtureLoop(): Promise<LoopPaths> {
  const workdir = await mkdtemp(join(tmpdir(), 'activities-test-'));
  onTestFinished(() => rm(workdir, { recursive: true, force: true }));
  const paths: LoopPaths = {
    workdir,
    stateDir: join(workdir, 'state'),
    runsRoot: join(workdir, 'runs'),
    dataRoot: join(workdir, 'data'),
    scoreCacheDir: null,
  };
  await mkdir(paths.dataRoot, { recursive: true });
  await writeFile(join(paths.dataRoot, 'dataset.json'), JSON.stringify({ items: 600 }));
  return paths;
}

/** Writes a base config under the workdir and returns its absolute path. */
export async function baseConfig(paths: LoopPaths, name: string, text: string): Promise<string> {
  const path = join(paths.workdir, 'configs', `${name}.yaml`);
  await mkdir(join(paths.workdir, 'configs'), { recursive: true });
  await writeFile(path, text);
  return path;
}

/** Reads a JSON file. */
export async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

/**
 * Whether a process (or, with a negative id, any process of a group) still runs. A zombie
 * waiting for init to reap it does not count: `kill(pid, 0)` alone would still find it.
 */
export function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') {
      return false;
    }
    throw error;
  }
  return pid > 0 ? state(pid) !== 'Z' : groupMembers(-pid).length > 0;
}

/** Pids of the running (not zombie) processes of a process group, read from /proc. */
function groupMembers(pgid: number): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const fields = statFields(pid);
      return fields !== null && fields[2] === String(pgid) && fields[0] !== 'Z';
    });
}

function state(pid: number): string | null {
  return statFields(pid)?.[0] ?? null;
}

/** The fields of /proc/PID/stat after the command name: state, ppid, pgrp, ... */
function statFields(pid: number): string[] | null {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text.slice(text.lastIndexOf(')') + 2).split(' ');
  } catch {
    return null;
  }
}

/** A split for generation 1 and the job config of one candidate in round 1, ready to train. */
export async function preparedTrain(
  paths: LoopPaths,
  name: string,
  overrides: Record<string, unknown> = {},
): Promise<TrainInput> {
  const { path: split } = await buildSplit({ paths, commands: fixtureCommands, generation: 1, splitSeed: 20261201 });
  const base = await baseConfig(paths, 'base', 'fixture_epochs: 4\nfixture_quality: 0.6\n');
  const runId = runIdFor(1, 1, name);
  const owner = `champion-loop/test/${runId}`;
  const prepared = await prepareRun({
    paths,
    candidate: { name, base_config: base, overrides },
    generation: 1,
    round: 1,
    seed: trainingSeed(1),
    split,
    runId,
    owner,
  });
  return {
    paths,
    commands: fixtureCommands,
    runId,
    configPath: prepared.configPath,
    owner,
    noCheckpointMarker: NO_CHECKPOINT,
  };
}

/** The run row the workflow records for a finished training. */
export function runRowOf(input: TrainInput, outcome: TrainOutcome, candidate: string): RunRow {
  const { selected: _selected, ...fields } = outcome;
  return {
    type: 'run',
    generation: 1,
    round: 1,
    seed: trainingSeed(1),
    candidate,
    run_id: input.runId,
    config_path: input.configPath,
    config_sha256: 'not checked here',
    ...fields,
  };
}
