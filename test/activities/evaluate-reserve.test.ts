import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { evaluateRun } from '../../src/activities/evaluate-run.js';
import { evaluateReserve } from '../../src/activities/evaluate-reserve.js';
import { setSubprocessEnv } from '../../src/activities/support/step-scope.js';
import { trainRun } from '../../src/activities/train-run.js';
import type { LoopPaths } from '../../src/activities/types.js';
import type { EvalRow } from '../../src/rules/types.js';
import { fixtureCommands, fixtureLoop, preparedTrain, runRowOf } from './fixture-loop.js';

afterEach(() => {
  setSubprocessEnv({});
});

async function champion(paths: LoopPaths): Promise<EvalRow> {
  const input = await preparedTrain(paths, 'base');
  const run = runRowOf(input, await trainRun(input), 'base');
  const [row] = await evaluateRun({
    paths,
    commands: fixtureCommands,
    run,
    checkpoints: run.checkpoints.slice(-1),
    role: 'test',
  });
  if (row === undefined) throw new Error('no test row');
  return row;
}

describe('evaluateReserve', () => {
  it('scores the champion on the reserve role with its training band scores', async () => {
    const paths = await fixtureLoop();
    const test = await champion(paths);
    const { row } = await evaluateReserve({
      paths,
      commands: fixtureCommands,
      champion: test,
      checkpointName: test.checkpoint_name,
    });
    const stem = test.checkpoint_name.replace(/\.pt$/, '');
    expect(row).toMatchObject({
      role: 'reserve',
      status: 'ok',
      run_id: test.run_id,
      checkpoint: test.checkpoint,
      epoch: test.epoch,
      validation: test.validation,
      eval_json: join(paths.stateDir, 'evals', test.run_id, `${stem}.reserve.json`),
    });
    expect(row.result?.fail_count).toBeGreaterThan(0);
    expect(row.decided).not.toBeNull();
    const log = await readFile(join(paths.stateDir, 'logs', `${test.run_id}.${stem}.reserve.eval.log`), 'utf8');
    expect(log).toContain(`"--checkpoint","${test.checkpoint}"`);
    expect(log).toContain(
      `"--band-scores","${join(paths.runsRoot, test.run_id, `validation-epoch-${stem.slice(-4)}.scores.jsonl`)}"`,
    );
  });

  it('reuses the finished reserve report on a retry', async () => {
    const paths = await fixtureLoop();
    const test = await champion(paths);
    const input = { paths, commands: fixtureCommands, champion: test, checkpointName: test.checkpoint_name };
    const first = await evaluateReserve(input);
    setSubprocessEnv({ FIXTURE_FAIL_EVALUATE: 'fail' });
    const again = await evaluateReserve(input);
    expect({ ...again.row, finished: '' }).toEqual({ ...first.row, finished: '' });
  });

  it('gives a failed row when the reserve evaluation fails', async () => {
    const paths = await fixtureLoop();
    const test = await champion(paths);
    setSubprocessEnv({ FIXTURE_FAIL_EVALUATE: 'fail:reserve' });
    const { row } = await evaluateReserve({
      paths,
      commands: fixtureCommands,
      champion: test,
      checkpointName: test.checkpoint_name,
    });
    expect(row).toMatchObject({ role: 'reserve', status: 'failed', result: null });
  });
});
