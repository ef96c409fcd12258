import { readdir, readFile, stat, writeFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure, CancelledFailure } from '@temporalio/common';
import { MockActivityEnvironment } from '@temporalio/testing';
import { afterEach, describe, expect, it } from 'vitest';
import { readScores, readSelection } from '../../src/contract/read.js';
import { STALE_RUN_DIR } from '../../src/activities/support/step-errors.js';
import { setSubprocessEnv } from '../../src/activities/support/step-scope.js';
import { type StepHeartbeat } from '../../src/activities/support/step-types.js';
import { trainRun } from '../../src/activities/train-run.js';
import { gateAuc } from '../../src/rules/gate-auc.js';
import { processesMentioning } from '../helpers/loop-checks.js';
import { alive, fixtureLoop, preparedTrain, readJson } from './fixture-loop.js';

afterEach(() => {
  setSubprocessEnv({});
});

describe('trainRun', () => {
  it('trains a run and collects the pareto checkpoints, then the selected one', async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base');
    const outcome = await trainRun(input);
    const dir = join(paths.runsRoot, input.runId);
    const pareto = await readJson<{ checkpoints: { checkpoint: string }[] }>(join(dir, 'pareto.json'));
    const selection = await readSelection(join(dir, 'selection.json'));
    const expected = [...new Set([...pareto.checkpoints.map((entry) => entry.checkpoint), selection.checkpoint])];
    expect(outcome).toMatchObject({
      status: 'trained',
      train_rc: 0,
      epochs_run: 4,
      checkpoints: expected,
      error: null,
    });
    const scores = await readScores(
      join(dir, `validation-epoch-${String(selection.epoch).padStart(4, '0')}.scores.jsonl`),
    );
    expect(outcome.selected).toEqual({
      checkpoint: selection.checkpoint,
      falseNegatives: selection.false_negatives,
      validationGateAuc: gateAuc(
        scores.map((row) => row.margin),
        scores.map((row) => row.target),
      ),
    });
    expect(Date.parse(outcome.finished)).toBeGreaterThanOrEqual(Date.parse(outcome.started));
    expect((await readFile(join(paths.stateDir, 'owners', input.runId), 'utf8')).trim()).toBe(input.owner);
    expect(await readFile(join(paths.stateDir, 'logs', `${input.runId}.train.log`), 'utf8')).toContain('epoch 4/4');
  });

  it('reports no eligible checkpoint when the trainer exits 1 with its marker line', async () => {
    const paths = await fixtureLoop();
    const outcome = await trainRun(await preparedTrain(paths, 'base', { fixture_train: 'no_eligible_checkpoint' }));
    expect(outcome).toMatchObject({
      status: 'no_eligible_checkpoint',
      train_rc: 1,
      epochs_run: 4,
      checkpoints: [],
      selected: null,
    });
  });

  it('looks for the marker line only in the output of this attempt', async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base', { fixture_train: 'no_eligible_checkpoint' });
    expect((await trainRun(input)).status).toBe('no_eligible_checkpoint');
    const exitOne = { ...input.commands, train: ['sh', '-c', 'exit 1', 'train'] };
    expect(await trainRun({ ...input, commands: exitOne })).toMatchObject({ status: 'train_failed', train_rc: 1 });
  });

  it('reports a failing trainer as train_failed with its exit code', async () => {
    const paths = await fixtureLoop();
    const outcome = await trainRun(await preparedTrain(paths, 'base', { fixture_train: 'fail' }));
    expect(outcome).toMatchObject({
      status: 'train_failed',
      train_rc: 3,
      epochs_run: 0,
      checkpoints: [],
      selected: null,
    });
    expect(outcome.error).toMatch(/^trainer ended with exit code 3; see .*\.train\.log$/);
  });

  it('reports a selection that breaks the contract as train_failed with the reason', async () => {
    const paths = await fixtureLoop();
    const outcome = await trainRun(await preparedTrain(paths, 'base', { fixture_train: 'malformed_selection' }));
    expect(outcome).toMatchObject({ status: 'train_failed', train_rc: 0, epochs_run: 4, checkpoints: [] });
    expect(outcome.error).toMatch(/^checkpoints could not be collected: .*selection\.json.*valid JSON/);
  });

  it('reports a trainer killed by SIGKILL with train_rc -9, as Popen reports it', async () => {
    const paths = await fixtureLoop();
    const outcome = await trainRun(await preparedTrain(paths, 'base', { fixture_train: 'crash' }));
    expect(outcome).toMatchObject({ status: 'train_failed', train_rc: -9, epochs_run: 2 });
  });

  it('moves its own half-written run directory aside on a retry and trains afresh', async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base');
    setSubprocessEnv({ FIXTURE_FAIL_TRAIN: `crash:${input.runId}` });
    expect((await trainRun(input)).status).toBe('train_failed');
    setSubprocessEnv({});
    const outcome = await trainRun(input);
    expect(outcome).toMatchObject({ status: 'trained', epochs_run: 4 });
    expect((await readdir(paths.runsRoot)).sort()).toEqual([input.runId, `${input.runId}.aside-1`]);
    expect(await readdir(join(paths.runsRoot, `${input.runId}.aside-1`))).not.toContain('selection.json');
  });

  it('with loop.yaml resume_flag resumes its own lost run from the newest complete epoch: no epoch trained twice', async () => {
    const paths = await fixtureLoop();
    const input = { ...(await preparedTrain(paths, 'base')), resumeFlag: '--resume-from' };
    const dir = join(paths.runsRoot, input.runId);
    // Killed after epoch 2 (as a lost lane's trainer is); epoch 3's checkpoint half there, as if cut short.
    setSubprocessEnv({ FIXTURE_FAIL_TRAIN: `crash:${input.runId}` });
    expect(await trainRun(input)).toMatchObject({ status: 'train_failed', epochs_run: 2 });
    await writeFile(join(dir, 'checkpoint-0003.pt'), '{"half');
    setSubprocessEnv({});
    const outcome = await trainRun(input);
    expect(outcome).toMatchObject({ status: 'trained', train_rc: 0, epochs_run: 4 });
    expect(await readdir(paths.runsRoot)).toEqual([input.runId]);
    const log = await readFile(join(paths.stateDir, 'logs', `${input.runId}.train.log`), 'utf8');
    expect(log).toContain(`train: resuming ${input.runId} from epoch 2 (checkpoint-0002.pt)`);
    expect(log).toContain(`"--resume-from","${join(dir, 'checkpoint-0002.pt')}"`);
    expect(log.match(/^epoch \d+\/4/gm)).toEqual(['epoch 1/4', 'epoch 2/4', 'epoch 3/4', 'epoch 4/4']);
    // Epoch 3 trained again from epoch 2's checkpoint: its checkpoint is whole now.
    expect(JSON.parse(await readFile(join(dir, 'checkpoint-0003.pt'), 'utf8'))).toBeTypeOf('object');
  });

  it('with loop.yaml resume_flag but no complete epoch, moves its run directory aside and trains afresh', async () => {
    const paths = await fixtureLoop();
    const input = { ...(await preparedTrain(paths, 'base')), resumeFlag: '--resume-from' };
    setSubprocessEnv({ FIXTURE_FAIL_TRAIN: `crash:${input.runId}` });
    expect((await trainRun(input)).status).toBe('train_failed');
    const dir = join(paths.runsRoot, input.runId);
    // Both epochs' metrics torn, as a trainer killed mid-write leaves them.
    for (const epoch of ['0001', '0002']) await writeFile(join(dir, `validation-epoch-${epoch}.json`), '{"ep');
    setSubprocessEnv({});
    expect(await trainRun(input)).toMatchObject({ status: 'trained', epochs_run: 4 });
    expect((await readdir(paths.runsRoot)).sort()).toEqual([input.runId, `${input.runId}.aside-1`]);
    const log = await readFile(join(paths.stateDir, 'logs', `${input.runId}.train.log`), 'utf8');
    expect(log).not.toContain('resuming');
  });

  it("refuses somebody else's run directory and leaves it untouched", async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base');
    const dir = join(paths.runsRoot, input.runId);
    await mkdir(dir, { recursive: true });
    await writeFile(join(dir, 'notes.txt'), 'mine\n');
    const error = await trainRun(input).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ApplicationFailure);
    expect(error).toMatchObject({ type: STALE_RUN_DIR, nonRetryable: true });
    expect((error as Error).message).toBe(
      `run directory ${dir} is not this loop's (it has no owner marker); it is left untouched`,
    );
    expect(await readdir(dir)).toEqual(['notes.txt']);
    expect(await readdir(paths.runsRoot)).toEqual([input.runId]);
  });

  it('sends megabytes of trainer output to the log file', async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base');
    setSubprocessEnv({ FIXTURE_MEGABYTES: '12' });
    expect((await trainRun(input)).status).toBe('trained');
    expect((await stat(join(paths.stateDir, 'logs', `${input.runId}.train.log`))).size).toBeGreaterThan(12 << 20);
  });

  it('kills a silent trainer after timeouts.no_progress and records it as hung, leaving no process behind', async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base', { fixture_train: 'hang' });
    const outcome = await trainRun({ ...input, noProgress: '2s' });
    expect(outcome).toMatchObject({
      status: 'train_failed',
      train_rc: -15,
      epochs_run: 1,
      checkpoints: [],
      selected: null,
    });
    expect(outcome.error).toMatch(
      /^no progress for 2s \(loop\.yaml timeouts\.no_progress\): no new output in its log or run directory; killed; see .*\.train\.log$/,
    );
    expect(await processesMentioning(input.configPath)).toEqual([]);
  });

  it('does not kill a trainer that keeps writing epochs for longer than timeouts.no_progress', async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base', {
      fixture_train: 'slow',
      fixture_sleep_ms: 500,
      fixture_epochs: 8,
    });
    const started = Date.now();
    const outcome = await trainRun({ ...input, noProgress: '2s' });
    expect(Date.now() - started).toBeGreaterThan(3_000);
    expect(outcome).toMatchObject({ status: 'trained', train_rc: 0, epochs_run: 8, error: null });
  });

  // The trainer's arguments: --config C --output-root R --run-id ID, so its run directory is $4/$6.
  it.each([
    ['only to its log', 'i=0; while [ $i -lt 8 ]; do echo "step $i"; sleep 0.5; i=$((i+1)); done; exit 3'],
    [
      'only to its run directory',
      'd="$4/$6"; mkdir -p "$d"; i=0; while [ $i -lt 8 ]; do echo $i > "$d/step"; sleep 0.5; i=$((i+1)); done; exit 3',
    ],
  ])('counts output written %s as progress', async (_where, script) => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base');
    const train = ['sh', '-c', script, 'train'];
    const outcome = await trainRun({ ...input, commands: { ...input.commands, train }, noProgress: '2s' });
    expect(outcome).toMatchObject({ status: 'train_failed', train_rc: 3 });
    expect(outcome.error).toMatch(/^trainer ended with exit code 3; /);
  });

  it('heartbeats inside an activity and kills the trainer group when the activity is cancelled', async () => {
    const paths = await fixtureLoop();
    const input = await preparedTrain(paths, 'base', { fixture_train: 'hang' });
    const env = new MockActivityEnvironment();
    const beats: StepHeartbeat[] = [];
    env.on('heartbeat', (details: StepHeartbeat) => beats.push(details));
    const running = env.run(trainRun, input);
    const log = join(paths.stateDir, 'logs', `${input.runId}.train.log`);
    await expect
      .poll(async () => (await readFile(log, 'utf8').catch(() => '')).includes('train: hanging'), {
        timeout: 20_000,
        message: 'the trainer hangs',
      })
      .toBe(true);
    const [beat] = beats;
    expect(beat).toMatchObject({ step: 'train' });
    const pgid = beat?.pgid ?? 0;
    expect(alive(-pgid)).toBe(true);
    env.cancel();
    await expect(running).rejects.toBeInstanceOf(CancelledFailure);
    expect(alive(-pgid)).toBe(false);
  });
});
