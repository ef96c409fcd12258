// A loop folder for one benchmark: data, base config, candidates.yaml and loop.yaml, with the
// fixture stack (real steps, durations set per candidate) or the bench stack (bench/stack/).
import { mkdir, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { stringify } from 'yaml';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import { PROJECT_ROOT } from '../../src/devserver/project-root.js';

const FIXTURE = path.join(PROJECT_ROOT, 'test', 'fixture-stack');
const BENCH_STACK = path.join(PROJECT_ROOT, 'bench', 'stack');
const node = (script: string): string[] => [process.execPath, path.join(FIXTURE, script)];
const shell = (script: string): string[] => ['/bin/sh', path.join(BENCH_STACK, script)];

/** fixture: test/fixture-stack's steps; bench: its split and teacher steps, with bench/stack's shell trainer and evaluators. */
export type Stack = 'fixture' | 'bench';

function stackCommands(stack: Stack): Record<string, string[] | null> {
  return {
    train: stack === 'fixture' ? node('train.mjs') : shell('train.sh'),
    evaluate: stack === 'fixture' ? node('evaluate.mjs') : shell('evaluate.sh'),
    evaluate_ensemble: stack === 'fixture' ? node('evaluate-ensemble.mjs') : shell('evaluate-ensemble.sh'),
    split_generate: node('split-generate.mjs'),
    split_carve: node('split-carve.mjs'),
    teacher_scores: node('teacher-scores.mjs'),
    // No packaging: a champion would add a package job (and its events) unrelated to dispatch.
    package: null,
  };
}

export interface CandidateSpec {
  readonly name: string;
  readonly overrides: Record<string, unknown>;
}

export interface LaneSpec {
  readonly host: string;
  readonly device: number;
  readonly slots: number;
}

export interface LoopFolder {
  readonly dir: string;
  readonly config: LoopConfig;
  readonly candidatesFile: string;
  /** Replace candidates.yaml at once (write, then rename): the next round reads the new list. */
  writeCandidates(candidates: readonly CandidateSpec[]): Promise<void>;
  /** The folder prepareRun writes a round's job configs to: there once the round's first job started. */
  roundDir(generation: number, round: number): string;
}

export async function createLoopFolder(options: {
  readonly dir: string;
  readonly stack: Stack;
  readonly candidates: readonly CandidateSpec[];
  readonly lanes: readonly LaneSpec[];
  readonly items: number;
  readonly base: Record<string, unknown>;
}): Promise<LoopFolder> {
  const { dir } = options;
  await mkdir(path.join(dir, 'configs'), { recursive: true });
  await mkdir(path.join(dir, 'data'), { recursive: true });
  await writeFile(path.join(dir, 'data', 'dataset.json'), JSON.stringify({ items: options.items }));
  await writeFile(path.join(dir, 'configs', 'base.yaml'), stringify(options.base));
  const candidatesFile = path.join(dir, 'candidates.yaml');
  const writeCandidates = async (candidates: readonly CandidateSpec[]): Promise<void> => {
    const text = stringify({
      candidates: candidates.map((c) => ({ name: c.name, base_config: 'configs/base.yaml', overrides: c.overrides })),
    });
    await writeFile(`${candidatesFile}.tmp`, text);
    await rename(`${candidatesFile}.tmp`, candidatesFile);
  };
  await writeCandidates(options.candidates);
  const slots = options.lanes.reduce((sum, lane) => sum + lane.slots, 0);
  const configFile = path.join(dir, 'loop.yaml');
  await writeFile(
    configFile,
    stringify({
      data_root: 'data',
      candidates: 'candidates.yaml',
      state_dir: 'state',
      runs_root: 'runs',
      parallel: slots,
      // No reserve check: the generation must hold every run of the benchmark.
      saturation_evals: 1_000_000_000,
      min_free_gib: 0,
      lanes: options.lanes,
      commands: stackCommands(options.stack),
      timeouts: { schedule_to_start: '2m', heartbeat: '1m' },
    }),
  );
  const config = await loadLoopConfig(configFile);
  return {
    dir,
    config,
    candidatesFile,
    writeCandidates,
    roundDir: (generation, round) =>
      path.join(
        config.state_dir,
        'configs',
        `gen-${String(generation).padStart(3, '0')}`,
        `round-${String(round).padStart(4, '0')}`,
      ),
  };
}
