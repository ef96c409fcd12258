import { createHash } from 'node:crypto';
import { readdir, readFile, rm, unlink, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateRun } from '../../src/activities/evaluate-run.js';
import { COMMAND_NOT_FOUND } from '../../src/activities/support/step-errors.js';
import { setSubprocessEnv } from '../../src/activities/support/step-scope.js';
import { trainRun } from '../../src/activities/train-run.js';
import type { LoopPaths } from '../../src/activities/types.js';
import { readReport } from '../../src/contract/read.js';
import type { RunRow } from '../../src/ledger/rows.js';
import { heldoutResult } from '../../src/rules/heldout.js';
import { ensembleRunId, MANIFEST_NAME } from '../../src/rules/index.js';
import { fixtureCommands, fixtureLoop, preparedTrain, readJson, runRowOf } from './fixture-loop.js';

afterEach(() => {
  setSubprocessEnv({});
});

/** The `eval` ledger row's keys, in order (docs/ledger.md, eval). */
const EVAL_KEYS = [
  'type',
  'generation',
  'role',
  'run_id',
  'candidate',
  'round',
  'checkpoint',
  'checkpoint_name',
  'checkpoint_sha256',
  'epoch',
  'config_path',
  'status',
  'validation',
  'result',
  'gate_auc',
  'gate_curve',
  'reject_band',
  'decided',
  'eval_json',
  'finished',
];

async function trainedRun(paths: LoopPaths, name = 'base', overrides: Record<string, unknown> = {}): Promise<RunRow> {
  const input = await preparedTrain(paths, name, overrides);
  const outcome = await trainRun(input);
  expect(outcome.status).toBe('trained');
  return runRowOf(input, outcome, name);
}

function headers(log: string): number {
  return log.split('\n').filter((line) => line.startsWith('--- ') && line.includes(': [')).length;
}

describe('evaluateRun', () => {
  it('scores every checkpoint in one evaluator process with training band scores, one eval row each', async () => {
    const paths = await fixtureLoop();
    const run = await trainedRun(paths);
    const rows = await evaluateRun({
      paths,
      commands: fixtureCommands,
      run,
      checkpoints: run.checkpoints,
      role: 'test',
    });
    expect(rows.map((row) => row.checkpoint_name)).toEqual(run.checkpoints);
    const runDir = join(paths.runsRoot, run.run_id);
    const jobs = await readJson<Record<string, string>[]>(join(paths.stateDir, 'logs', `${run.run_id}.test.jobs.json`));
    expect(jobs).toHaveLength(run.checkpoints.length);
    for (const [index, name] of run.checkpoints.entries()) {
      const stem = name.replace(/\.pt$/, '');
      const epoch = Number(stem.slice(-4));
      const report = join(paths.stateDir, 'evals', run.run_id, `${stem}.test.json`);
      expect(jobs[index]).toEqual({
        checkpoint: join(runDir, name),
        output: report,
        scores_output: join(paths.stateDir, 'evals', run.run_id, `${stem}.test.scores.jsonl`),
        band_scores: join(runDir, `validation-epoch-${stem.slice(-4)}.scores.jsonl`),
      });
      const row = rows[index];
      const parsed = await readReport(report);
      expect(Object.keys(row ?? {})).toEqual(EVAL_KEYS);
      expect(row).toMatchObject({
        type: 'eval',
        generation: 1,
        role: 'test',
        run_id: run.run_id,
        candidate: 'base',
        round: 1,
        checkpoint: join(runDir, name),
        checkpoint_sha256: parsed.checkpoint_sha256,
        epoch,
        config_path: run.config_path,
        status: 'ok',
        validation: await readJson(join(runDir, `validation-epoch-${stem.slice(-4)}.json`)),
        result: heldoutResult(parsed),
        gate_auc: parsed.gate_auc,
        gate_curve: parsed.gate_curve,
        reject_band: parsed.reject_band,
        decided: parsed.decided,
        eval_json: report,
      });
      expect(row?.decided).not.toBeNull();
      expect(row?.finished).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    }
    expect(headers(await readFile(join(paths.stateDir, 'logs', `${run.run_id}.test.eval.log`), 'utf8'))).toBe(1);
  });

  it('reuses finished reports on a retry instead of scoring again', async () => {
    const paths = await fixtureLoop();
    const run = await trainedRun(paths);
    const input = { paths, commands: fixtureCommands, run, checkpoints: run.checkpoints, role: 'test' as const };
    const first = await evaluateRun(input);
    setSubprocessEnv({ FIXTURE_FAIL_EVALUATE: 'fail' });
    const again = await evaluateRun(input);
    expect(again.map(({ finished: _f, ...row }) => row)).toEqual(first.map(({ finished: _f, ...row }) => row));
    expect(headers(await readFile(join(paths.stateDir, 'logs', `${run.run_id}.test.eval.log`), 'utf8'))).toBe(1);
  });

  it('scores a run trained again afresh instead of reusing the reports of its previous training', async () => {
    const paths = await fixtureLoop();
    // Every epoch's checkpoint, so that both trainings score the same names.
    const checkpoints = [1, 2, 3, 4].map((epoch) => `checkpoint-000${epoch}.pt`);
    const first = await trainedRun(paths);
    const before = await evaluateRun({ paths, commands: fixtureCommands, run: first, checkpoints, role: 'test' });
    // Trained again (after a stop at once, or a lost child re-queued): a different model under the same run id.
    const again = await trainedRun(paths, 'base', { fixture_quality: 0.9 });
    const after = await evaluateRun({ paths, commands: fixtureCommands, run: again, checkpoints, role: 'test' });
    expect(after.map((row) => row.status)).toEqual(checkpoints.map(() => 'ok'));
    for (const [index, row] of after.entries()) {
      expect(row.checkpoint_sha256).toBe(
        createHash('sha256')
          .update(await readFile(row.checkpoint))
          .digest('hex'),
      );
      expect(row.checkpoint_sha256).not.toBe(before[index]?.checkpoint_sha256);
      expect(row.result).toEqual(heldoutResult(await readReport(row.eval_json)));
    }
    const jobs = await readJson<{ checkpoint: string }[]>(
      join(paths.stateDir, 'logs', `${again.run_id}.test.jobs.json`),
    );
    expect(jobs.map((job) => job.checkpoint)).toEqual(after.map((row) => row.checkpoint));
    // The earlier reports are kept beside the run directory's, never deleted.
    expect((await readdir(join(paths.stateDir, 'evals'))).sort()).toEqual([again.run_id, `${again.run_id}.aside-1`]);
    expect(
      (await readdir(join(paths.stateDir, 'evals', `${again.run_id}.aside-1`))).filter((name) =>
        name.endsWith('.test.json'),
      ).length,
    ).toBe(before.length);
  });

  it('scores only the checkpoints without a report, moving scores left by a killed evaluator aside', async () => {
    const paths = await fixtureLoop();
    const run = await trainedRun(paths);
    const input = { paths, commands: fixtureCommands, run, checkpoints: run.checkpoints, role: 'test' as const };
    const first = await evaluateRun(input);
    const last = first.at(-1);
    if (last === undefined) throw new Error('no rows');
    await unlink(last.eval_json);
    const again = await evaluateRun(input);
    expect(again.every((row) => row.status === 'ok')).toBe(true);
    const jobs = await readJson<{ checkpoint: string }[]>(join(paths.stateDir, 'logs', `${run.run_id}.test.jobs.json`));
    expect(jobs.map((job) => job.checkpoint)).toEqual([last.checkpoint]);
    const stem = last.checkpoint_name.replace(/\.pt$/, '');
    expect(await readdir(join(paths.stateDir, 'evals', run.run_id))).toContain(`${stem}.test.scores.jsonl.aside-1`);
  });

  it('records a failed row for an invalid report and says why in the evaluator log', async () => {
    const paths = await fixtureLoop();
    const run = await trainedRun(paths, 'base', { fixture_eval: 'malformed_report' });
    const rows = await evaluateRun({
      paths,
      commands: fixtureCommands,
      run,
      checkpoints: run.checkpoints,
      role: 'test',
    });
    expect(rows.map((row) => row.status)).toEqual(run.checkpoints.map(() => 'failed'));
    expect(rows[0]).toMatchObject({ checkpoint_sha256: null, result: null, decided: null, gate_auc: null });
    expect(rows[0]?.validation).not.toBeNull();
    const log = await readFile(join(paths.stateDir, 'logs', `${run.run_id}.test.eval.log`), 'utf8');
    expect(log).toMatch(
      new RegExp(`eval failed ${run.run_id} ${run.checkpoints[0] ?? ''} test: invalid report: .*valid JSON`),
    );
    // The row says why too (not a seed field), and which log to read.
    expect(rows[0]?.error).toMatch(/^invalid report: .*valid JSON.*; see .*\.test\.eval\.log$/s);
  });

  it('records failed rows when the evaluator is killed before writing its reports', async () => {
    const paths = await fixtureLoop();
    const run = await trainedRun(paths);
    setSubprocessEnv({ FIXTURE_FAIL_EVALUATE: 'partial:test' });
    const rows = await evaluateRun({
      paths,
      commands: fixtureCommands,
      run,
      checkpoints: run.checkpoints,
      role: 'test',
    });
    expect(rows.every((row) => row.status === 'failed')).toBe(true);
    const log = await readFile(join(paths.stateDir, 'logs', `${run.run_id}.test.eval.log`), 'utf8');
    expect(log).toContain('no report at');
    expect(log).toContain('(evaluator ended with signal SIGKILL)');
    for (const row of rows) expect(row.error).toContain('(evaluator ended with signal SIGKILL); see ');
  });

  it('scores a checkpoint once on validation when training left no validation scores', async () => {
    const paths = await fixtureLoop();
    const run = await trainedRun(paths);
    const runDir = join(paths.runsRoot, run.run_id);
    for (const name of await readdir(runDir)) {
      if (name.endsWith('.scores.jsonl')) await rm(join(runDir, name));
    }
    const [name] = run.checkpoints;
    if (name === undefined) throw new Error('no checkpoint');
    const rows = await evaluateRun({ paths, commands: fixtureCommands, run, checkpoints: [name], role: 'test' });
    expect(rows[0]?.status).toBe('ok');
    const stem = name.replace(/\.pt$/, '');
    const jobs = await readJson<Record<string, string>[]>(join(paths.stateDir, 'logs', `${run.run_id}.test.jobs.json`));
    expect(jobs[0]?.band_scores).toBe(join(paths.stateDir, 'evals', run.run_id, `${stem}.validation.scores.jsonl`));
    const log = await readFile(join(paths.stateDir, 'logs', `${run.run_id}.${stem}.validation.eval.log`), 'utf8');
    expect(log).toContain(`"--checkpoint","${join(runDir, name)}"`);
    expect(log).toContain('"--role","validation"');
  });

  it('scores a synthetic ensemble run through its manifest with the ensemble evaluator', async () => {
    const paths = await fixtureLoop();
    const one = await trainedRun(paths, 'one');
    const two = await trainedRun(paths, 'two', { fixture_quality: 0.8 });
    const members = [one, two].map((run) => ({
      config: run.config_path,
      checkpoint: join(paths.runsRoot, run.run_id, run.checkpoints.at(-1) ?? ''),
    }));
    const manifest = join(paths.stateDir, 'ensembles', 'gen-001', MANIFEST_NAME);
    await mkdir(join(paths.stateDir, 'ensembles', 'gen-001'), { recursive: true });
    await writeFile(manifest, `${JSON.stringify({ members }, null, 2)}\n`);
    const run: RunRow = {
      type: 'run',
      generation: 1,
      round: 1,
      seed: null,
      candidate: 'ensemble_teacher_members',
      run_id: ensembleRunId(1),
      config_path: manifest,
      config_sha256: 'x',
      status: 'ensemble',
      train_rc: null,
      started: 'now',
      finished: 'now',
      epochs_run: null,
      checkpoints: [MANIFEST_NAME],
      error: null,
      members,
    };
    const [row] = await evaluateRun({
      paths,
      commands: fixtureCommands,
      run,
      checkpoints: [MANIFEST_NAME],
      role: 'test',
    });
    expect(Object.keys(row ?? {})).toEqual([...EVAL_KEYS, 'manifest', 'members']);
    expect(row).toMatchObject({
      status: 'ok',
      checkpoint: manifest,
      checkpoint_name: MANIFEST_NAME,
      epoch: null,
      validation: null,
      manifest,
      members,
      eval_json: join(paths.stateDir, 'evals', run.run_id, 'teacher-members.test.json'),
    });
    expect(row?.decided).not.toBeNull();
    const log = await readFile(join(paths.stateDir, 'logs', `${run.run_id}.teacher-members.test.eval.log`), 'utf8');
    expect(log).toContain(`"--manifest","${manifest}"`);
    expect(log).toContain(
      `"--band-scores","${join(paths.stateDir, 'evals', run.run_id, 'teacher-members.validation.scores.jsonl')}"`,
    );
  });

  it('fails without retries when the evaluator command does not exist', async () => {
    const paths = await fixtureLoop();
    const run = await trainedRun(paths);
    const commands = { ...fixtureCommands, evaluate: ['/no/such/evaluate'] };
    await expect(
      evaluateRun({ paths, commands, run, checkpoints: run.checkpoints, role: 'test' }),
    ).rejects.toMatchObject({
      type: COMMAND_NOT_FOUND,
      nonRetryable: true,
      message: expect.stringMatching(
        /^command not found: \/no\/such\/evaluate \(loop\.yaml commands\.evaluate\)/,
      ) as unknown,
    });
  });
});
