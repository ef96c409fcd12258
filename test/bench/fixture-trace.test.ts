import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseTrace, tracedJobs } from '../../bench/lib/trace.js';

const STACK = fileURLToPath(new URL('../fixture-stack/', import.meta.url));
const CLEAN = { PATH: process.env.PATH ?? '' };

describe("the fixture stack's opt-in step trace (FIXTURE_TRACE)", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'fixture-trace-'));
    await writeFile(join(dir, 'dataset.json'), JSON.stringify({ items: 40 }));
    const run = (script: string, args: string[]) =>
      execa('node', [join(STACK, script), ...args], { cwd: dir, env: CLEAN, extendEnv: false });
    await run('split-generate.mjs', [
      '--data-root',
      '.',
      '--output',
      'dev.json',
      '--seed',
      '1',
      '--validation-fraction',
      '0.1',
    ]);
    await run('split-carve.mjs', [
      '--split',
      'dev.json',
      '--output',
      'split.json',
      '--role',
      'test',
      '--test-fraction',
      '0.2',
      '--seed',
      '1',
    ]);
    await writeFile(join(dir, 'config.yaml'), 'split: split.json\nseed: 1\nfixture_epochs: 1\n');
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('writes nothing unless asked', async () => {
    await execa(
      'node',
      [join(STACK, 'train.mjs'), '--config', 'config.yaml', '--output-root', 'runs', '--run-id', 'quiet'],
      { cwd: dir, env: CLEAN, extendEnv: false },
    );
    await expect(readFile(join(dir, 'trace.jsonl'), 'utf8')).rejects.toThrow();
  });

  it('appends one line per step with its lane, pid, start, end and config, which pair into a job', async () => {
    const env = { ...CLEAN, FIXTURE_TRACE: join(dir, 'trace.jsonl'), CUDA_VISIBLE_DEVICES: '3' };
    const train = execa(
      'node',
      [join(STACK, 'train.mjs'), '--config', 'config.yaml', '--output-root', 'runs', '--run-id', 'traced'],
      { cwd: dir, env, extendEnv: false },
    );
    await train;
    await writeFile(
      join(dir, 'jobs.json'),
      JSON.stringify([{ checkpoint: 'runs/traced/checkpoint-0001.pt', output: 'r.json', scores_output: 's.jsonl' }]),
    );
    const evaluate = execa(
      'node',
      [join(STACK, 'evaluate.mjs'), '--config', 'config.yaml', '--role', 'test', '--jobs', 'jobs.json'],
      { cwd: dir, env, extendEnv: false },
    );
    await evaluate;
    const steps = parseTrace(await readFile(join(dir, 'trace.jsonl'), 'utf8'));
    expect(steps.map((step) => [step.step, step.lane, step.config])).toEqual([
      ['train', '3', 'config.yaml'],
      ['evaluate', '3', 'config.yaml'],
    ]);
    expect(steps.map((step) => step.pid)).toEqual([train.pid, evaluate.pid]);
    for (const step of steps) {
      expect(step.start).toBeLessThanOrEqual(step.loaded);
      expect(step.loaded).toBeLessThanOrEqual(step.end);
    }
    const [job] = tracedJobs(steps);
    expect(job).toMatchObject({ kind: 'run', lane: '3', key: 'config.yaml' });
    expect(steps[1]?.start ?? 0).toBeGreaterThanOrEqual(steps[0]?.end ?? Infinity);
  });
});
