// The python-gate stack's commands on their own, run as loop.yaml runs them (`python3 -m
// pygate.<step>` in examples/python-gate with the seed's flags): the files they write parse with
// the loop's own contract readers, and a stopped or killed trainer leaves no process behind.
import { execa, type ResultPromise } from 'execa';
import { existsSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readPareto, readReport, readScores, readSelection, readValidationEpoch } from '../../src/contract/index.js';
import { processesMentioning } from '../helpers/loop-checks.js';
import { pythonStackUnavailable } from '../helpers/python-stack.js';

const STACK = fileURLToPath(new URL('../../examples/python-gate/', import.meta.url));
const SEED = '20261201';
const unavailable = pythonStackUnavailable();

describe.skipIf(unavailable !== null)('the python-gate commands', () => {
  let dir = '';
  let stack = '';
  let split = '';

  /** One step, as loop.yaml runs it: in the stack's folder, `python3 -m pygate.<module>`. */
  function step(module: string, args: readonly string[], env: Record<string, string> = {}) {
    return execa('python3', ['-m', `pygate.${module}`, ...args], { cwd: stack, reject: false, env });
  }

  /**
   * `run`'s result, or after `ms` an error saying which wait it was and, as far as /proc tells
   * within 5 s more, which processes mentioning `mark` still live, in what state.
   */
  async function endsWithin<T>(run: Promise<T>, ms: number, mark: string): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const left = async (): Promise<string> => {
      const found = await processesMentioning(mark);
      const states = await Promise.all(
        found.map(async ({ pid, cmdline }) => {
          const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
          const wchan = await readFile(`/proc/${pid}/wchan`, 'utf8').catch(() => '?');
          return `${pid} state ${stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] ?? '?'} in ${wchan}: ${cmdline}`;
        }),
      );
      return states.join('; ') || 'none';
    };
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const unread = new Promise<string>((done) => setTimeout(() => done('(/proc did not answer in 5 s)'), 5_000));
        void Promise.race([left(), unread]).then((states) =>
          reject(new Error(`'${mark}' not ended after ${ms} ms; processes left: ${states}`)),
        );
      }, ms);
    });
    try {
      return await Promise.race([run, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  /** A job config as the loop writes one: the base config with `values` over it, then split and seed. */
  async function config(name: string, values: Record<string, string | number> = {}): Promise<string> {
    const path = join(dir, `${name}.yaml`);
    const base = (await readFile(join(stack, 'configs', 'base.yaml'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#') && !((line.split(':')[0] ?? '') in values));
    const extra = Object.entries(values).map(([key, value]) => `${key}: ${value}`);
    await writeFile(path, [...base, ...extra, `split: ${split}`, 'seed: 7', ''].join('\n'));
    return path;
  }

  const runDir = (id: string) => join(dir, 'runs', id);

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'python-gate-stack-'));
    stack = join(dir, 'python-gate');
    await cp(STACK, stack, { recursive: true, filter: (source) => !/\/(artifacts|__pycache__)(\/|$)/.test(source) });
    const carve = (from: string, to: string, role: string) =>
      step('split_carve', [
        '--split',
        join(dir, from),
        '--output',
        join(dir, to),
        '--role',
        role,
        '--test-fraction',
        '0.10',
        '--seed',
        SEED,
      ]);
    expect(
      (
        await step('split_generate', [
          '--data-root',
          'data',
          '--output',
          join(dir, 'devval.yaml'),
          '--seed',
          SEED,
          '--validation-fraction',
          '0.10',
        ])
      ).exitCode,
    ).toBe(0);
    expect((await carve('devval.yaml', 'tested.yaml', 'test')).exitCode).toBe(0);
    expect((await carve('tested.yaml', 'gen-001.yaml', 'reserve')).exitCode).toBe(0);
    split = join(dir, 'gen-001.yaml');
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('splits the data set into four disjoint roles, each with passes and fails', async () => {
    const { roles } = JSON.parse(await readFile(split, 'utf8')) as { roles: Record<string, string[]> };
    expect(Object.keys(roles)).toEqual(['development', 'validation', 'test', 'reserve']);
    const all = Object.values(roles).flat();
    expect(new Set(all).size).toBe(all.length);
    expect(all).toHaveLength(1200);
    expect(roles.test?.length).toBeGreaterThan(50);
  });

  it('trains: per-epoch checkpoints, validation files and scores, pareto.json and selection.json the loop reads', async () => {
    const result = await step(
      'train',
      ['--config', await config('base'), '--output-root', join(dir, 'runs'), '--run-id', 'base'],
      {
        CUDA_VISIBLE_DEVICES: '3',
      },
    );
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain("CUDA_VISIBLE_DEVICES='3'");
    for (let epoch = 1; epoch <= 4; epoch += 1) {
      const name = `validation-epoch-000${epoch}`;
      expect(await readValidationEpoch(join(runDir('base'), `${name}.json`))).toMatchObject({ epoch });
      expect((await readScores(join(runDir('base'), `${name}.scores.jsonl`))).length).toBeGreaterThan(50);
      expect(existsSync(join(runDir('base'), `checkpoint-000${epoch}.json`))).toBe(true);
    }
    const selection = await readSelection(join(runDir('base'), 'selection.json'));
    const pareto = await readPareto(join(runDir('base'), 'pareto.json'));
    expect(pareto.checkpoints.map((entry) => entry.checkpoint)).toContain(selection.checkpoint);
  });

  it('resumes a killed training from a checkpoint (--resume-from) and ends with the model a run never lost has', async () => {
    const train = (id: string, configPath: string, extra: readonly string[] = []) =>
      step('train', ['--config', configPath, '--output-root', join(dir, 'runs'), '--run-id', id, ...extra]);
    expect((await endsWithin(train('whole', await config('whole')), 60_000, '--run-id whole')).exitCode).toBe(0);
    // Slow epochs, so that the kill comes after epoch 2 and before the run ends (sleeping changes no weight).
    const slow = await config('lost', { epoch_sleep_s: 0.5 });
    const lost = train('lost', slow);
    await endsWithin(
      expect
        .poll(() => existsSync(join(runDir('lost'), 'validation-epoch-0002.json')), { timeout: 30_000, interval: 50 })
        .toBe(true),
      45_000,
      '--run-id lost',
    );
    lost.kill('SIGKILL');
    // The kill ends the trainer; its loader notices within a second and exits, closing the pipes the
    // result waits for. Once (2026-12-03, a box hogged far past its cores) something here never ended:
    // a wait that goes past a minute now says which processes are left and what each waits in.
    expect((await endsWithin(lost, 60_000, '--run-id lost')).signal).toBe('SIGKILL');
    expect(existsSync(join(runDir('lost'), 'selection.json'))).toBe(false);
    const resumed = await endsWithin(
      train('lost', slow, ['--resume-from', join(runDir('lost'), 'checkpoint-0002.json')]),
      60_000,
      '--run-id lost',
    );
    expect(resumed.stderr).toBe('');
    expect(resumed.exitCode).toBe(0);
    // Epochs 3 and 4 trained, 1 and 2 kept.
    expect(resumed.stdout.match(/^epoch \d+/gm)).toEqual(['epoch 3', 'epoch 4']);
    const model = async (id: string, epoch: number) => {
      const { weights, bias } = JSON.parse(await readFile(join(runDir(id), `checkpoint-000${epoch}.json`), 'utf8')) as {
        weights: number[];
        bias: number;
      };
      return { weights, bias };
    };
    for (let epoch = 1; epoch <= 4; epoch += 1) expect(await model('lost', epoch)).toEqual(await model('whole', epoch));
    for (const file of ['selection.json', 'pareto.json', 'validation-epoch-0004.json'])
      expect(await readFile(join(runDir('lost'), file), 'utf8')).toBe(
        await readFile(join(runDir('whole'), file), 'utf8'),
      );
    const refused = await endsWithin(
      train('other', slow, ['--resume-from', join(runDir('lost'), 'checkpoint-0002.json')]),
      60_000,
      '--run-id other',
    );
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('not a checkpoint-NNNN.json of');
  });

  it('refuses a device it does not know, and device: cuda on a box whose PyTorch sees no GPU, each in one line (exit 2)', async () => {
    const train = (id: string, configPath: string) =>
      step('train', ['--config', configPath, '--output-root', join(dir, 'runs'), '--run-id', id]);
    const unknown = await train('tpu', await config('tpu', { device: 'tpu' }));
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toContain('device must be one of cpu, cuda, sim, got');
    const cuda = await train('cuda', await config('cuda', { device: 'cuda' }));
    const hasGpu = cuda.exitCode === 0;
    // Where this box has PyTorch with a GPU it trains there; elsewhere it says what is missing.
    if (!hasGpu) {
      expect(cuda.exitCode).toBe(2);
      expect(cuda.stderr).toMatch(/device: cuda (needs PyTorch, which is not installed|, but PyTorch sees no GPU)/);
    } else expect(cuda.stdout).toMatch(/^gpu \{/m);
  });

  it('evaluates a single checkpoint as training scored it, and a batch past a job whose config sha256 differs', async () => {
    const base = join(dir, 'base.yaml');
    const selected = (await readSelection(join(runDir('base'), 'selection.json'))).checkpoint;
    const epochScores = join(runDir('base'), `validation-epoch-${selected.slice(-9, -5)}.scores.jsonl`);
    const single = await step('evaluate', [
      '--config',
      base,
      '--checkpoint',
      join(runDir('base'), selected),
      '--output',
      join(dir, 'evals', 'validation.json'),
      '--role',
      'validation',
      '--scores-output',
      join(dir, 'evals', 'validation.scores.jsonl'),
    ]);
    expect(single.exitCode).toBe(0);
    expect(await readFile(join(dir, 'evals', 'validation.scores.jsonl'), 'utf8')).toBe(
      await readFile(epochScores, 'utf8'),
    );
    const job = (epoch: string, extra: object) => ({
      checkpoint: join(runDir('base'), `checkpoint-${epoch}.json`),
      output: join(dir, 'evals', `${epoch}.test.json`),
      scores_output: join(dir, 'evals', `${epoch}.test.scores.jsonl`),
      band_scores: epochScores,
      ...extra,
    });
    const jobs = join(dir, 'jobs.json');
    await writeFile(
      jobs,
      JSON.stringify([job('0001', { config: base, config_sha256: '0'.repeat(64) }), job('0002', {})]),
    );
    const batch = await step('evaluate', ['--config', base, '--role', 'test', '--jobs', jobs]);
    expect(batch.exitCode).toBe(1);
    expect(batch.stderr).toContain('job 0');
    expect(existsSync(join(dir, 'evals', '0001.test.json'))).toBe(false);
    const report = await readReport(join(dir, 'evals', '0002.test.json'));
    expect(report.reject_band).toMatchObject({ chosen_on: 'validation' });
    expect(report.gate_auc).toBeGreaterThan(0.8);
  });

  it('prints the marker and exits 1 when no epoch is eligible, and refuses a student without its teacher', async () => {
    const weak = await step('train', [
      '--config',
      await config('weak', { min_validation_auc: 1.0 }),
      '--output-root',
      join(dir, 'runs'),
      '--run-id',
      'weak',
    ]);
    expect(weak.exitCode).toBe(1);
    expect(weak.stdout.split('\n')).toContain('no eligible checkpoint');
    const missing = join(dir, 'teachers', 'gen-009', 'insample.jsonl');
    const orphan = await step('train', [
      '--config',
      await config('orphan', { gate_soft_targets: missing }),
      '--output-root',
      join(dir, 'runs'),
      '--run-id',
      'orphan',
    ]);
    expect(orphan.exitCode).toBe(2);
    expect(orphan.stderr).toContain(missing);
    expect(existsSync(runDir('orphan'))).toBe(false);
  });

  describe('a trainer stopped mid-epoch', () => {
    /** A trainer in its first minute-long epoch, once its loader process is up: both pids. */
    async function slowTrainer(id: string): Promise<{ run: ResultPromise<{ reject: false }>; loader: number }> {
      const run = execa(
        'python3',
        [
          '-m',
          'pygate.train',
          '--config',
          await config(id, { epoch_sleep_s: 60 }),
          '--output-root',
          join(dir, 'runs'),
          '--run-id',
          id,
        ],
        { cwd: stack, reject: false },
      );
      let loader = 0;
      await expect
        .poll(
          async () => {
            const found = (await processesMentioning(`--run-id ${id}`)).filter((p) => p.pid !== run.pid);
            loader = found[0]?.pid ?? 0;
            return found.length;
          },
          { timeout: 20_000, interval: 100, message: 'the loader process runs' },
        )
        .toBe(1);
      return { run, loader };
    }

    it('dies of SIGTERM (as the loop sends it) after stopping its loader process', async () => {
      const { run } = await slowTrainer('term');
      run.kill('SIGTERM');
      const result = await run;
      expect(result.signal).toBe('SIGTERM');
      expect(result.stderr).toContain('stopped by SIGTERM');
      expect(await processesMentioning('--run-id term')).toEqual([]);
    });

    it('whose trainer alone is killed (SIGKILL, the OOM killer): its loader notices and exits on its own', async () => {
      const { run, loader } = await slowTrainer('killed');
      run.kill('SIGKILL');
      expect((await run).signal).toBe('SIGKILL');
      await expect
        .poll(async () => (await processesMentioning('--run-id killed')).map((p) => p.pid), {
          timeout: 10_000,
          interval: 100,
          message: `loader ${loader} exits`,
        })
        .toEqual([]);
    });
  });
});
