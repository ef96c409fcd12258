import { execa, type Result } from 'execa';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import {
  readJobs,
  readManifest,
  readPareto,
  readReport,
  readScores,
  readSelection,
  readValidationEpoch,
} from '../src/contract/index.js';

const STACK = fileURLToPath(new URL('./fixture-stack/', import.meta.url));
const CONTRACT = fileURLToPath(new URL('./fixtures/contract/', import.meta.url));
// Mirrors test/fixture-stack/lib/markers.mjs (checked below) and loop.yaml's no_checkpoint_marker.
const NO_CHECKPOINT = 'no eligible checkpoint';
const SPLIT_SEED = '20261201';
const TRAIN_SEED = 20260929;

type Env = Record<string, string>;
// Fault knobs from the caller's shell must not leak into the steps (empty means unset).
const CLEAN: Env = Object.fromEntries(
  ['SPLIT', 'TRAIN', 'EVALUATE', 'ENSEMBLE', 'TEACHER', 'PACKAGE']
    .map((step) => `FIXTURE_FAIL_${step}`)
    .concat(['FIXTURE_MEGABYTES', 'FIXTURE_PACKAGE_SLEEP_MS'])
    .map((name): [string, string] => [name, '']),
);
type Run = Result<{ reject: false }>;
interface Report extends Record<string, unknown> {
  pass_count: number;
  pass_correct_count: number;
  fail_count: number;
  fail_to_pass_count: number;
  checkpoint_sha256: string;
  reject_band?: { low: number; high: number; chosen_on: string };
  decided?: Record<string, number>;
}
interface Score {
  id: string;
  target: number;
  margin: number;
}
interface Selection {
  checkpoint: string;
  epoch: number;
  false_negatives: number;
}

let root = '';
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'fixture-stack-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function node(cwd: string, script: string, args: readonly string[], env: Env = {}): Promise<Run> {
  return execa('node', [join(STACK, script), ...args], { cwd, env: { ...CLEAN, ...env }, reject: false });
}

async function ok(cwd: string, script: string, args: readonly string[], env: Env = {}): Promise<Run> {
  const result = await node(cwd, script, args, env);
  expect(result.stderr, `${script} stderr`).toBe('');
  expect(result.exitCode, `${script} exit code`).toBe(0);
  return result;
}

/** Runs a step that should hang, then kills its whole process group after `ms`. */
async function killedAfter(cwd: string, script: string, args: readonly string[], env: Env, ms: number): Promise<Run> {
  const subprocess = execa('node', [join(STACK, script), ...args], {
    cwd,
    env: { ...CLEAN, ...env },
    reject: false,
    detached: true,
  });
  const timer = setTimeout(() => {
    if (subprocess.pid !== undefined) process.kill(-subprocess.pid, 'SIGTERM');
  }, ms);
  try {
    return await subprocess;
  } finally {
    clearTimeout(timer);
  }
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

async function readJsonl<T>(path: string): Promise<T[]> {
  const text = await readFile(path, 'utf8');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

function sha256(bytes: Buffer): string {
  return createHash('sha256').update(bytes).digest('hex');
}

async function newDir(name: string): Promise<string> {
  const dir = join(root, name);
  await mkdir(join(dir, 'data'), { recursive: true });
  await writeFile(join(dir, 'data', 'dataset.json'), JSON.stringify({ items: 600 }));
  return dir;
}

async function makeSplit(dir: string, seed = SPLIT_SEED): Promise<string> {
  const carve = (from: string, to: string, role: string) => [
    '--split',
    from,
    '--output',
    to,
    '--role',
    role,
    '--test-fraction',
    '0.10',
    '--seed',
    seed,
  ];
  await ok(dir, 'split-generate.mjs', [
    '--data-root',
    'data',
    '--output',
    'splits/devval.yaml',
    '--seed',
    seed,
    '--validation-fraction',
    '0.10',
  ]);
  await ok(dir, 'split-carve.mjs', carve('splits/devval.yaml', 'splits/tested.yaml', 'test'));
  await ok(dir, 'split-carve.mjs', carve('splits/tested.yaml', 'splits/gen-001.yaml', 'reserve'));
  return 'splits/gen-001.yaml';
}

async function writeConfig(dir: string, name: string, values: Record<string, unknown>): Promise<string> {
  const path = `configs/${name}.yaml`;
  await mkdir(join(dir, 'configs'), { recursive: true });
  await writeFile(join(dir, path), stringify({ split: 'splits/gen-001.yaml', seed: TRAIN_SEED, ...values }));
  return path;
}

async function train(dir: string, config: string, runId: string, env: Env = {}): Promise<Run> {
  return node(dir, 'train.mjs', ['--config', config, '--output-root', 'runs', '--run-id', runId], env);
}

/** Checkpoints the loop scores: every Pareto entry plus the selected one. */
async function checkpointsOf(runDir: string): Promise<string[]> {
  const pareto = await readJson<{ checkpoints: { checkpoint: string }[] }>(join(runDir, 'pareto.json'));
  const selection = await readJson<Selection>(join(runDir, 'selection.json'));
  return [...new Set([...pareto.checkpoints.map((c) => c.checkpoint), selection.checkpoint])];
}

function evalJob(runId: string, name: string, role: string) {
  const stem = name.replace(/\.pt$/, '');
  const epoch = stem.slice(-4);
  return {
    checkpoint: `runs/${runId}/${name}`,
    output: `evals/${runId}/${stem}.${role}.json`,
    scores_output: `evals/${runId}/${stem}.${role}.scores.jsonl`,
    band_scores: `runs/${runId}/validation-epoch-${epoch}.scores.jsonl`,
  };
}

/** The whole chain the loop drives, with the loop's own flags, in `dir`. */
async function pipeline(dir: string): Promise<string[]> {
  const printed: string[] = [];
  await makeSplit(dir);
  const runs = { 'champ-g001-r0001-base': { quality: 0.5 }, 'champ-g001-r0001-wide': { quality: 0.8, hidden: 512 } };
  for (const [runId, values] of Object.entries(runs)) {
    const config = await writeConfig(dir, runId, values);
    expect((await train(dir, config, runId)).exitCode).toBe(0);
    const jobs = (await checkpointsOf(join(dir, 'runs', runId))).map((name) => evalJob(runId, name, 'test'));
    await writeFile(join(dir, `${runId}.test.jobs.json`), JSON.stringify(jobs, null, 1));
    await ok(dir, 'evaluate.mjs', [
      '--config',
      config,
      '--role',
      'test',
      '--jobs',
      `${runId}.test.jobs.json`,
      '--score-cache-dir',
      'cache',
    ]);
  }
  const members = [];
  const devJobs = [];
  for (const runId of Object.keys(runs)) {
    const selection = await readJson<Selection>(join(dir, 'runs', runId, 'selection.json'));
    const config = `configs/${runId}.yaml`;
    members.push({ config, checkpoint: `runs/${runId}/${selection.checkpoint}` });
    devJobs.push({
      config,
      config_sha256: sha256(await readFile(join(dir, config))),
      checkpoint: `runs/${runId}/${selection.checkpoint}`,
      output: `teacher/${runId}.dev.json`,
      scores_output: `teacher/${runId}.dev.scores.jsonl`,
    });
  }
  await writeFile(join(dir, 'manifest.json'), JSON.stringify({ members }, null, 2));
  const ensemble = (role: string, band: string[]) => [
    '--manifest',
    'manifest.json',
    '--output',
    `evals/ens/all.${role}.json`,
    '--role',
    role,
    '--scores-output',
    `evals/ens/all.${role}.scores.jsonl`,
    ...band,
  ];
  await ok(dir, 'evaluate-ensemble.mjs', ensemble('validation', []));
  await ok(dir, 'evaluate-ensemble.mjs', ensemble('test', ['--band-scores', 'evals/ens/all.validation.scores.jsonl']));
  await writeFile(join(dir, 'teacher.jobs.json'), JSON.stringify(devJobs, null, 1));
  await ok(dir, 'evaluate.mjs', [
    '--config',
    members[0]?.config ?? '',
    '--role',
    'development',
    '--jobs',
    'teacher.jobs.json',
  ]);
  await ok(dir, 'teacher-scores.mjs', [
    '--inputs',
    ...devJobs.map((job) => job.scores_output),
    '--output',
    'teacher/insample.jsonl',
  ]);
  const student = await writeConfig(dir, 'champ-g001-r0002-student', { gate_soft_targets: 'teacher/insample.jsonl' });
  expect((await train(dir, student, 'champ-g001-r0002-student')).exitCode).toBe(0);
  const base = await readJson<Selection>(join(dir, 'runs/champ-g001-r0001-base/selection.json'));
  const champion = evalJob('champ-g001-r0001-base', base.checkpoint, 'test');
  for (const source of [
    ['--checkpoint', champion.checkpoint, '--config', 'configs/champ-g001-r0001-base.yaml'],
    ['--manifest', 'manifest.json'],
  ]) {
    const report = source[0] === '--manifest' ? 'evals/ens/all.test.json' : champion.output;
    const result = await ok(dir, 'package.mjs', [
      ...source,
      '--test-eval',
      report,
      '--generation',
      '1',
      '--state-dir',
      'state',
    ]);
    printed.push(result.stdout.trim());
  }
  return printed;
}

async function filesUnder(dir: string): Promise<Map<string, Buffer>> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  const files = new Map<string, Buffer>();
  for (const entry of entries.filter((e) => e.isFile())) {
    const path = join(entry.parentPath, entry.name);
    files.set(path.slice(dir.length), await readFile(path));
  }
  return files;
}

describe('the fixture pipeline', () => {
  let dir = '';
  let packages: string[] = [];
  beforeAll(async () => {
    dir = await newDir('pipeline');
    packages = await pipeline(dir);
  });

  it('splits the data set into four disjoint roles that cover every item', async () => {
    const split = parse(await readFile(join(dir, 'splits/gen-001.yaml'), 'utf8')) as {
      roles: Record<string, string[]>;
    };
    expect(Object.keys(split.roles)).toEqual(['development', 'validation', 'test', 'reserve']);
    const sizes = Object.values(split.roles).map((ids) => ids.length);
    expect(sizes).toEqual([437, 60, 54, 49]);
    expect(new Set(Object.values(split.roles).flat()).size).toBe(600);
  });

  it("every file the loop reads parses with the loop's contract readers", async () => {
    const runDir = join(dir, 'runs/champ-g001-r0001-base');
    await readSelection(join(runDir, 'selection.json'));
    await readPareto(join(runDir, 'pareto.json'));
    await readValidationEpoch(join(runDir, 'validation-epoch-0001.json'));
    await readScores(join(runDir, 'validation-epoch-0001.scores.jsonl'));
    const jobs = await readJobs(join(dir, 'champ-g001-r0001-base.test.jobs.json'));
    for (const job of jobs) {
      await readReport(join(dir, job.output));
      await readScores(join(dir, job.scores_output));
    }
    await readJobs(join(dir, 'teacher.jobs.json'));
    await readManifest(join(dir, 'manifest.json'));
    await readReport(join(dir, 'evals/ens/all.test.json'));
  });

  it('training writes checkpoints, validation metrics and scores per epoch, a selection and a front', async () => {
    const example = await readJson<Record<string, unknown>>(join(CONTRACT, 'validation-epoch-0007.json'));
    const runDir = join(dir, 'runs/champ-g001-r0001-base');
    const names = await readdir(runDir);
    for (const epoch of ['0001', '0002', '0003', '0004']) {
      expect(names).toContain(`checkpoint-${epoch}.pt`);
      expect(names).toContain(`validation-epoch-${epoch}.scores.jsonl`);
      const metrics = await readJson<Record<string, unknown>>(join(runDir, `validation-epoch-${epoch}.json`));
      expect(Object.keys(metrics)).toEqual(Object.keys(example));
    }
    const selection = await readJson<Selection>(join(runDir, 'selection.json'));
    expect(Object.keys(selection)).toEqual(Object.keys(await readJson<Selection>(join(CONTRACT, 'selection.json'))));
    expect(selection.checkpoint).toMatch(/^checkpoint-\d{4}\.pt$/);
    const front = await readJson<{ checkpoints: { checkpoint: string }[] }>(join(runDir, 'pareto.json'));
    expect(front.checkpoints.map((c) => c.checkpoint)).toContain(selection.checkpoint);
    const scores = await readJsonl<Score>(join(runDir, 'validation-epoch-0001.scores.jsonl'));
    expect(scores).toHaveLength(60);
    const [exampleRow] = await readJsonl<Score>(join(CONTRACT, 'scores.test.jsonl'));
    expect(Object.keys(scores[0] ?? {})).toEqual(Object.keys(exampleRow ?? {}));
  });

  it('batch evaluation writes a scores file and a contract-shaped report per checkpoint', async () => {
    const jobs = await readJson<ReturnType<typeof evalJob>[]>(join(dir, 'champ-g001-r0001-base.test.jobs.json'));
    expect(jobs.length).toBeGreaterThan(0);
    const example = await readJson<Report>(join(CONTRACT, 'report.test.json'));
    for (const job of jobs) {
      const report = await readJson<Report>(join(dir, job.output));
      expect(Object.keys(report)).toEqual(expect.arrayContaining(Object.keys(example)));
      expect(Object.keys(report.decided ?? {})).toEqual(Object.keys(example.decided ?? {}));
      expect(report.reject_band?.chosen_on).toBe('validation');
      expect(report.checkpoint_sha256).toBe(sha256(await readFile(join(dir, job.checkpoint))));
      expect(report.pass_count + report.fail_count).toBe(54);
      const scores = await readJsonl<Score>(join(dir, job.scores_output));
      expect(scores).toHaveLength(54);
      expect(scores.filter((s) => s.target === 0 && s.margin > 0)).toHaveLength(report.fail_to_pass_count);
    }
    expect((await readdir(join(dir, 'evals/champ-g001-r0001-base'))).filter((name) => name.includes('.tmp-'))).toEqual(
      [],
    );
  });

  it('the ensemble report hashes the manifest and averages member margins', async () => {
    const report = await readJson<Report>(join(dir, 'evals/ens/all.test.json'));
    expect(report.checkpoint_sha256).toBe(sha256(await readFile(join(dir, 'manifest.json'))));
    expect(report.decided?.rejected_total).toEqual(expect.any(Number));
    const ensemble = await readJsonl<Score>(join(dir, 'evals/ens/all.test.scores.jsonl'));
    expect(ensemble).toHaveLength(54);
  });

  it('teacher scores are the mean development margin per item', async () => {
    const base = await readJsonl<Score>(join(dir, 'teacher/champ-g001-r0001-base.dev.scores.jsonl'));
    const wide = await readJsonl<Score>(join(dir, 'teacher/champ-g001-r0001-wide.dev.scores.jsonl'));
    const teacher = await readJsonl<{ id: string; margin: number }>(join(dir, 'teacher/insample.jsonl'));
    expect(teacher).toHaveLength(437);
    expect(teacher[7]?.id).toBe(base[7]?.id);
    expect(teacher[7]?.margin).toBeCloseTo(((base[7]?.margin ?? 0) + (wide[7]?.margin ?? 0)) / 2, 5);
  });

  it('a student trained on the teacher records the teacher in its checkpoints', async () => {
    const checkpoint = await readJson<{ teacher: { sha256: string } | null }>(
      join(dir, 'runs/champ-g001-r0002-student/checkpoint-0001.pt'),
    );
    expect(checkpoint.teacher?.sha256).toBe(sha256(await readFile(join(dir, 'teacher/insample.jsonl'))));
  });

  it('packaging prints a package folder holding model, config, report and provenance', async () => {
    expect(packages).toHaveLength(2);
    expect(new Set(packages).size).toBe(2);
    expect((await readdir(join(dir, packages[0] ?? ''))).sort()).toEqual([
      'config.yaml',
      'model.json',
      'provenance.json',
      'test-eval.json',
    ]);
    expect(await readdir(join(dir, packages[1] ?? ''))).toEqual(
      expect.arrayContaining(['manifest.json', 'model.json', 'provenance.json']),
    );
    const provenance = await readJson<{ generation: number; source: string }>(
      join(dir, packages[1] ?? '', 'provenance.json'),
    );
    expect(provenance).toMatchObject({ generation: 1, source: 'manifest' });
  });

  it('the same inputs give byte-identical outputs', async () => {
    const again = await newDir('pipeline-again');
    expect(await pipeline(again)).toEqual(packages);
    const first = await filesUnder(dir);
    const second = await filesUnder(again);
    expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
    for (const [path, bytes] of first) expect(second.get(path)?.equals(bytes), path).toBe(true);
  });
});

describe('seeds and quality move the counts', () => {
  let dir = '';
  beforeAll(async () => {
    dir = await newDir('variation');
    await makeSplit(dir);
  });

  async function validationCounts(runId: string, values: Record<string, unknown>): Promise<string> {
    expect((await train(dir, await writeConfig(dir, runId, values), runId)).exitCode).toBe(0);
    const counts = [];
    for (const epoch of ['0001', '0002', '0003', '0004']) {
      const m = await readJson<{ fail_to_pass_count: number; pass_to_fail_count: number }>(
        join(dir, 'runs', runId, `validation-epoch-${epoch}.json`),
      );
      counts.push(`${m.fail_to_pass_count}/${m.pass_to_fail_count}`);
    }
    return counts.join(' ');
  }

  it('different training seeds give different validation counts', async () => {
    const first = await validationCounts('seed-a', { seed: TRAIN_SEED });
    expect(await validationCounts('seed-b', { seed: TRAIN_SEED + 1 })).not.toBe(first);
  });

  it('different quality gives different validation counts', async () => {
    const low = await validationCounts('quality-low', { quality: 0.1 });
    expect(await validationCounts('quality-high', { quality: 0.9 })).not.toBe(low);
  });

  it('a split written by hand as plain YAML loads too', async () => {
    const roles = { development: ['item-000001'], validation: ['item-000002'], test: ['item-000003', 'item-000004'] };
    await writeFile(join(dir, 'splits/hand.yaml'), stringify({ dataset: { items: 600 }, seed: 1, roles }));
    const config = await writeConfig(dir, 'hand', { split: 'splits/hand.yaml' });
    await ok(dir, 'evaluate.mjs', [
      '--config',
      config,
      '--checkpoint',
      'runs/seed-a/checkpoint-0001.pt',
      '--output',
      'evals/hand.json',
      '--role',
      'test',
      '--scores-output',
      'evals/hand.scores.jsonl',
    ]);
    expect((await readJsonl<Score>(join(dir, 'evals/hand.scores.jsonl'))).map((row) => row.id)).toEqual(roles.test);
  });

  it('different split seeds give different test roles', async () => {
    const other = await newDir('variation-other');
    await makeSplit(other, '20261202');
    const a = await readFile(join(dir, 'splits/gen-001.yaml'), 'utf8');
    const b = await readFile(join(other, 'splits/gen-001.yaml'), 'utf8');
    expect(b).not.toBe(a);
  });
});

describe('fault injection', () => {
  let dir = '';
  const evalArgs = (role: string, name: string, config = 'configs/base.yaml') => [
    '--config',
    config,
    '--checkpoint',
    'runs/base/checkpoint-0002.pt',
    '--output',
    `evals/${name}.json`,
    '--role',
    role,
    '--scores-output',
    `evals/${name}.scores.jsonl`,
  ];

  beforeAll(async () => {
    dir = await newDir('faults');
    await makeSplit(dir);
    await writeConfig(dir, 'base', {});
    expect((await train(dir, 'configs/base.yaml', 'base')).exitCode).toBe(0);
    await ok(dir, 'evaluate.mjs', evalArgs('test', 'base'));
  });

  it('the shared marker module holds the no-checkpoint line', async () => {
    const markers = (await import(pathToFileURL(join(STACK, 'lib/markers.mjs')).href)) as { NO_CHECKPOINT: string };
    expect(markers.NO_CHECKPOINT).toBe(NO_CHECKPOINT);
  });

  it('no_eligible_checkpoint exits 1 after printing the marker line', async () => {
    const result = await train(
      dir,
      await writeConfig(dir, 'none', { fixture_train: 'no_eligible_checkpoint' }),
      'none',
    );
    expect(result.exitCode).toBe(1);
    expect(result.stdout.split('\n')).toContain(NO_CHECKPOINT);
    expect(existsSync(join(dir, 'runs/none/selection.json'))).toBe(false);
  });

  it('train fail exits 3 with a message on stderr', async () => {
    const result = await train(dir, 'configs/base.yaml', 'failed', { FIXTURE_FAIL_TRAIN: 'fail' });
    expect(result.exitCode).toBe(3);
    expect(result.stderr).toContain('injected failure');
  });

  it('a crashing trainer dies by SIGKILL and leaves a partial run directory', async () => {
    const result = await train(dir, await writeConfig(dir, 'crash', { fixture_train: 'crash' }), 'crash');
    expect(result.signal).toBe('SIGKILL');
    expect((await readdir(join(dir, 'runs/crash'))).sort()).toEqual([
      'checkpoint-0001.pt',
      'checkpoint-0002.pt',
      'validation-epoch-0001.json',
      'validation-epoch-0001.scores.jsonl',
      'validation-epoch-0002.json',
      'validation-epoch-0002.scores.jsonl',
    ]);
  });

  it('a hanging trainer runs until its process group is killed', async () => {
    const started = Date.now();
    const result = await killedAfter(
      dir,
      'train.mjs',
      ['--config', 'configs/base.yaml', '--output-root', 'runs', '--run-id', 'hang'],
      { FIXTURE_FAIL_TRAIN: 'hang' },
      1000,
    );
    expect(result.signal).toBe('SIGTERM');
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(result.stdout).toContain('hanging');
  });

  it('malformed and missing selections still exit 0', async () => {
    const malformed = await train(
      dir,
      await writeConfig(dir, 'malformed', { fixture_train: 'malformed_selection' }),
      'malformed',
    );
    expect(malformed.exitCode).toBe(0);
    await expect(readJson(join(dir, 'runs/malformed/selection.json'))).rejects.toThrow(SyntaxError);
    const missing = await train(
      dir,
      await writeConfig(dir, 'missing', { fixture_train: 'missing_selection' }),
      'missing',
    );
    expect(missing.exitCode).toBe(0);
    expect(existsSync(join(dir, 'runs/missing/selection.json'))).toBe(false);
    expect(existsSync(join(dir, 'runs/missing/pareto.json'))).toBe(true);
  });

  it('fixture_sleep_ms and fixture_epochs set how long training takes', async () => {
    const started = Date.now();
    const config = await writeConfig(dir, 'sleepy', { fixture_sleep_ms: 200, fixture_epochs: 2 });
    expect((await train(dir, config, 'sleepy')).exitCode).toBe(0);
    expect(Date.now() - started).toBeGreaterThanOrEqual(400);
    expect(existsSync(join(dir, 'runs/sleepy/checkpoint-0003.pt'))).toBe(false);
  });

  it('a missing teacher file fails training with a clear error', async () => {
    const result = await train(
      dir,
      await writeConfig(dir, 'student', { gate_soft_targets: 'teacher/none.jsonl' }),
      'student',
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('teacher/none.jsonl');
  });

  it('a partial evaluation leaves scores but no report', async () => {
    const result = await node(dir, 'evaluate.mjs', evalArgs('test', 'partial'), { FIXTURE_FAIL_EVALUATE: 'partial' });
    expect(result.signal).toBe('SIGKILL');
    expect(existsSync(join(dir, 'evals/partial.scores.jsonl'))).toBe(true);
    expect(existsSync(join(dir, 'evals/partial.json'))).toBe(false);
  });

  it('no_report and malformed_report exit 0 without a usable report', async () => {
    expect(
      (await node(dir, 'evaluate.mjs', evalArgs('test', 'none'), { FIXTURE_FAIL_EVALUATE: 'no_report' })).exitCode,
    ).toBe(0);
    expect(existsSync(join(dir, 'evals/none.json'))).toBe(false);
    expect(
      (await node(dir, 'evaluate.mjs', evalArgs('test', 'bad'), { FIXTURE_FAIL_EVALUATE: 'malformed_report' }))
        .exitCode,
    ).toBe(0);
    await expect(readJson(join(dir, 'evals/bad.json'))).rejects.toThrow();
  });

  it('an env fault with a target hits only that role', async () => {
    const env = { FIXTURE_FAIL_EVALUATE: 'fail:reserve' };
    expect((await node(dir, 'evaluate.mjs', evalArgs('test', 'targeted'), env)).exitCode).toBe(0);
    const reserve = await node(dir, 'evaluate.mjs', evalArgs('reserve', 'targeted-reserve'), env);
    expect(reserve.exitCode).toBe(3);
    expect(existsSync(join(dir, 'evals/targeted-reserve.scores.jsonl'))).toBe(false);
  });

  it('a slow evaluation sleeps before scoring, fixture_eval_sleep_ms long when set', async () => {
    const config = await writeConfig(dir, 'evalslow', { fixture_eval_sleep_ms: 300 });
    const started = Date.now();
    await ok(dir, 'evaluate.mjs', evalArgs('reserve', 'slow', config), { FIXTURE_FAIL_EVALUATE: 'slow:reserve' });
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(existsSync(join(dir, 'evals/slow.json'))).toBe(true);
  });

  it('a degraded evaluation lets every failing item pass on the role it targets', async () => {
    const env = { FIXTURE_FAIL_EVALUATE: 'degraded:reserve' };
    await ok(dir, 'evaluate.mjs', evalArgs('reserve', 'plain-reserve'));
    await ok(dir, 'evaluate.mjs', evalArgs('reserve', 'degraded-reserve'), env);
    await ok(dir, 'evaluate.mjs', evalArgs('test', 'degraded-test'), env);
    const plain = await readJson<Report>(join(dir, 'evals/plain-reserve.json'));
    const degraded = await readJson<Report>(join(dir, 'evals/degraded-reserve.json'));
    const test = await readJson<Report>(join(dir, 'evals/degraded-test.json'));
    const base = await readJson<Report>(join(dir, 'evals/base.json'));
    expect(degraded.fail_count).toBe(plain.fail_count);
    expect(plain.fail_to_pass_count).toBeLessThan(plain.fail_count);
    expect(degraded.fail_to_pass_count).toBe(degraded.fail_count);
    expect(degraded.pass_correct_count).toBe(degraded.pass_count);
    expect({ ...test, checkpoint: '' }).toEqual({ ...base, checkpoint: '' });
  });

  it('a per-job config fault in a batch spares the other jobs', async () => {
    const config = await writeConfig(dir, 'noreport', { fixture_eval: 'no_report' });
    const jobs = [
      { ...evalJob('base', 'checkpoint-0001.pt', 'test'), config },
      evalJob('base', 'checkpoint-0002.pt', 'test'),
    ];
    await writeFile(join(dir, 'batch.jobs.json'), JSON.stringify(jobs));
    await ok(dir, 'evaluate.mjs', ['--config', 'configs/base.yaml', '--role', 'test', '--jobs', 'batch.jobs.json']);
    expect(existsSync(join(dir, jobs[0]?.output ?? ''))).toBe(false);
    expect(existsSync(join(dir, jobs[0]?.scores_output ?? ''))).toBe(true);
    expect(existsSync(join(dir, jobs[1]?.output ?? ''))).toBe(true);
  });

  it('a hanging evaluator runs until its process group is killed', async () => {
    const config = await writeConfig(dir, 'evalhang', { fixture_eval: 'hang' });
    const result = await killedAfter(dir, 'evaluate.mjs', evalArgs('test', 'hang', config), {}, 500);
    expect(result.signal).toBe('SIGTERM');
    expect(existsSync(join(dir, 'evals/hang.scores.jsonl'))).toBe(false);
  });

  it('split, ensemble, teacher and package steps fail with exit 3 when told to', async () => {
    const split = await node(
      dir,
      'split-carve.mjs',
      [
        '--split',
        'splits/devval.yaml',
        '--output',
        'splits/x.yaml',
        '--role',
        'test',
        '--test-fraction',
        '0.1',
        '--seed',
        '1',
      ],
      { FIXTURE_FAIL_SPLIT: 'fail:test' },
    );
    await writeFile(
      join(dir, 'manifest.json'),
      JSON.stringify({ members: [{ config: 'configs/base.yaml', checkpoint: 'runs/base/checkpoint-0001.pt' }] }),
    );
    const ensemble = await node(
      dir,
      'evaluate-ensemble.mjs',
      [
        '--manifest',
        'manifest.json',
        '--output',
        'evals/e.json',
        '--role',
        'test',
        '--scores-output',
        'evals/e.scores.jsonl',
      ],
      { FIXTURE_FAIL_ENSEMBLE: 'fail' },
    );
    const teacher = await node(
      dir,
      'teacher-scores.mjs',
      ['--inputs', 'runs/base/validation-epoch-0001.scores.jsonl', '--output', 'teacher/t.jsonl'],
      { FIXTURE_FAIL_TEACHER: 'fail' },
    );
    const pack = await node(
      dir,
      'package.mjs',
      ['--manifest', 'manifest.json', '--test-eval', 'evals/base.json', '--generation', '1', '--state-dir', 'state'],
      { FIXTURE_FAIL_PACKAGE: 'fail' },
    );
    expect([split, ensemble, teacher, pack].map((r) => r.exitCode)).toEqual([3, 3, 3, 3]);
  });

  it('a crashing split step leaves a partial output file', async () => {
    const result = await node(
      dir,
      'split-carve.mjs',
      [
        '--split',
        'splits/tested.yaml',
        '--output',
        'splits/partial.yaml',
        '--role',
        'reserve',
        '--test-fraction',
        '0.1',
        '--seed',
        '1',
      ],
      { FIXTURE_FAIL_SPLIT: 'crash' },
    );
    expect(result.signal).toBe('SIGKILL');
    expect((await readFile(join(dir, 'splits/partial.yaml'), 'utf8')).length).toBe(200);
  });

  it('FIXTURE_PACKAGE_SLEEP_MS delays packaging', async () => {
    const started = Date.now();
    const result = await ok(
      dir,
      'package.mjs',
      [
        '--checkpoint',
        'runs/base/checkpoint-0001.pt',
        '--config',
        'configs/base.yaml',
        '--test-eval',
        'evals/base.json',
        '--generation',
        '2',
        '--state-dir',
        'state',
      ],
      { FIXTURE_PACKAGE_SLEEP_MS: '300' },
    );
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(existsSync(join(dir, result.stdout.trim(), 'model.json'))).toBe(true);
  });

  it('FIXTURE_MEGABYTES prints that much output before the step does its work', async () => {
    const result = await ok(
      dir,
      'teacher-scores.mjs',
      ['--inputs', 'runs/base/validation-epoch-0001.scores.jsonl', '--output', 'teacher/big.jsonl'],
      { FIXTURE_MEGABYTES: '2' },
    );
    expect(result.stdout.length).toBeGreaterThanOrEqual(2 * 1024 * 1024);
    expect(result.stdout).toMatch(/teacher scores teacher\/big\.jsonl items=60/);
  });

  it('an unknown option or fault mode exits 2', async () => {
    expect((await node(dir, 'train.mjs', ['--config', 'configs/base.yaml', '--bogus', 'x'])).exitCode).toBe(2);
    expect((await train(dir, 'configs/base.yaml', 'odd', { FIXTURE_FAIL_TRAIN: 'explode' })).exitCode).toBe(2);
  });
});
