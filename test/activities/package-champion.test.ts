import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { packageChampion } from '../../src/activities/package-champion.js';
import { setSubprocessEnv } from '../../src/activities/support/step-scope.js';
import type { LoopPaths, PackageChampion } from '../../src/activities/types.js';
import { evaluateRun } from '../../src/activities/evaluate-run.js';
import { trainRun } from '../../src/activities/train-run.js';
import { fixtureCommands, fixtureLoop, preparedTrain, runRowOf } from './fixture-loop.js';

afterEach(() => {
  setSubprocessEnv({});
});

async function champion(paths: LoopPaths): Promise<PackageChampion> {
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
  return { ...row, requested: new Date().toISOString() };
}

const command = fixtureCommands.package ?? [];

describe('packageChampion', () => {
  it('runs the package command with the checkpoint, config, test report, generation and state dir', async () => {
    const paths = await fixtureLoop();
    const chosen = await champion(paths);
    const outcome = await packageChampion({ paths, command, champion: chosen });
    const log = join(paths.stateDir, 'logs', `package-${chosen.run_id}-${String(chosen.epoch).padStart(4, '0')}.log`);
    expect(outcome).toMatchObject({
      launched: true,
      exitCode: 0,
      log,
      command: [
        ...command,
        ...['--checkpoint', chosen.checkpoint, '--config', chosen.config_path],
        ...['--test-eval', chosen.eval_json, '--generation', '1', '--state-dir', paths.stateDir],
      ],
    });
    const [folder] = await readdir(join(paths.stateDir, 'packages'));
    expect(await readFile(log, 'utf8')).toContain(join(paths.stateDir, 'packages', folder ?? ''));
  });

  it('passes the manifest of an ensemble champion and names its log without an epoch', async () => {
    const paths = await fixtureLoop();
    const chosen: PackageChampion = {
      ...(await champion(paths)),
      run_id: 'ens-g001-teacher',
      epoch: null,
      manifest: '/m/teacher-members.json',
    };
    const outcome = await packageChampion({ paths, command: ['sh', '-c', 'exit 0', 'package'], champion: chosen });
    expect(outcome).toMatchObject({
      launched: true,
      exitCode: 0,
      log: join(paths.stateDir, 'logs', 'package-ens-g001-teacher.log'),
      command: [
        'sh',
        '-c',
        'exit 0',
        'package',
        '--manifest',
        '/m/teacher-members.json',
        '--test-eval',
        chosen.eval_json,
        '--generation',
        '1',
        '--state-dir',
        paths.stateDir,
      ],
    });
  });

  it('records the exit code of a failing package command', async () => {
    const paths = await fixtureLoop();
    const chosen = await champion(paths);
    setSubprocessEnv({ FIXTURE_FAIL_PACKAGE: 'fail' });
    expect(await packageChampion({ paths, command, champion: chosen })).toMatchObject({ launched: true, exitCode: 3 });
  });

  it('answers a package command that cannot start as not launched, with the reason', async () => {
    const paths = await fixtureLoop();
    const chosen = await champion(paths);
    const outcome = await packageChampion({ paths, command: ['/opt/missing/package'], champion: chosen });
    expect(outcome).toMatchObject({
      launched: false,
      error: expect.stringMatching(
        /^command not found: \/opt\/missing\/package \(loop\.yaml commands\.package\)/,
      ) as unknown,
    });
  });
});
