import { readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as activities from '../../src/activities/index.js';
import {
  createLaneActivities,
  laneActivities,
  orchestratorActivities,
  packageActivities,
} from '../../src/activities/index.js';
import type { RunRow } from '../../src/ledger/rows.js';
import { runIdFor, splitSeed, trainingSeed } from '../../src/rules/index.js';
import { baseConfig, fixtureCommands, fixtureLoop, NO_CHECKPOINT } from './fixture-loop.js';

describe('activities', () => {
  it('registers every exported activity with exactly one kind of worker', () => {
    const registered = [orchestratorActivities, laneActivities, packageActivities].flatMap((group) =>
      Object.keys(group),
    );
    expect(new Set(registered).size, 'an activity registered by two kinds of worker').toBe(registered.length);
    // The two exports that are not activities: they make and configure a lane's activities.
    const helpers = new Set(['createLaneActivities', 'setSubprocessEnv']);
    const exported = Object.entries(activities)
      .filter(([name, value]) => typeof value === 'function' && !helpers.has(name))
      .map(([name]) => name);
    expect(exported.sort()).toEqual([...registered].sort());
  });

  it('keeps every activity in a file named after it, and nothing else beside index.ts and types.ts', async () => {
    const dir = fileURLToPath(new URL('../../src/activities/', import.meta.url));
    const files = (await readdir(dir)).filter(
      (name) => name.endsWith('.ts') && name !== 'index.ts' && name !== 'types.ts',
    );
    const camel = (file: string) =>
      file.replace(/\.ts$/, '').replace(/-(\w)/g, (_, letter: string) => letter.toUpperCase());
    for (const file of files) {
      const module = (await import(join(dir, file))) as Record<string, unknown>;
      const name = camel(file);
      // requestPackaging needs a client: its file exports the factory that makes it.
      const factory = `create${name.charAt(0).toUpperCase()}${name.slice(1)}`;
      expect(
        typeof module[name] === 'function' || typeof module[factory] === 'function',
        `${file} exports ${name}`,
      ).toBe(true);
    }
    for (const name of Object.keys({ ...orchestratorActivities, ...laneActivities, ...packageActivities })) {
      expect(files.map(camel)).toContain(name);
    }
  });

  it('gives each lane made by createLaneActivities its own device, even in one process', async () => {
    const paths = await fixtureLoop();
    const report = ['sh', '-c', 'echo "device=$CUDA_VISIBLE_DEVICES"; exit 1', 'train'];
    const lanes = [0, 1].map((device) => createLaneActivities({ env: { CUDA_VISIBLE_DEVICES: String(device) } }));
    // A job config the trainer is handed must be there (JobConfigMissing otherwise).
    await writeFile(join(paths.workdir, 'unused.yaml'), '');
    await Promise.all(
      lanes.map((lane, device) =>
        lane.trainRun({
          paths,
          commands: { ...fixtureCommands, train: report },
          runId: `run-${device}`,
          configPath: join(paths.workdir, 'unused.yaml'),
          owner: 'test',
          noCheckpointMarker: NO_CHECKPOINT,
        }),
      ),
    );
    for (const device of [0, 1]) {
      expect(await readFile(join(paths.stateDir, 'logs', `run-${device}.train.log`), 'utf8')).toContain(
        `device=${device}\n`,
      );
    }
  });

  it('take a candidate from candidates.yaml to a packaged champion in a fresh loop', async () => {
    const paths = await fixtureLoop();
    await baseConfig(paths, 'base', 'fixture_epochs: 3\nfixture_quality: 0.5\n');
    const file = join(paths.workdir, 'candidates.yaml');
    await writeFile(
      file,
      'candidates:\n  - name: strong\n    base_config: configs/base.yaml\n    overrides: {fixture_quality: 0.8}\n',
    );
    const read = await orchestratorActivities.readCandidates({ file, workdir: paths.workdir });
    if (!read.ok) throw new Error(read.error);
    const [candidate] = read.candidates;
    if (candidate === undefined) throw new Error('no candidate');

    const { path: split } = await orchestratorActivities.buildSplit({
      paths,
      commands: fixtureCommands,
      generation: 1,
      splitSeed: splitSeed(20261200, 1),
    });
    const runId = runIdFor(1, 1, candidate.name);
    const owner = `champion-loop/demo/${runId}`;
    const prepared = await orchestratorActivities.prepareRun({
      paths,
      candidate,
      generation: 1,
      round: 1,
      seed: trainingSeed(1),
      split,
      runId,
      owner,
    });
    expect(prepared.stale).toBe(false);

    const trained = await laneActivities.trainRun({
      paths,
      commands: fixtureCommands,
      runId,
      configPath: prepared.configPath,
      owner,
      noCheckpointMarker: NO_CHECKPOINT,
    });
    expect(trained.status).toBe('trained');
    const { selected: _selected, ...fields } = trained;
    const run: RunRow = {
      type: 'run',
      generation: 1,
      round: 1,
      seed: trainingSeed(1),
      candidate: candidate.name,
      run_id: runId,
      config_path: prepared.configPath,
      config_sha256: prepared.configSha256,
      ...fields,
    };
    const evals = await laneActivities.evaluateRun({
      paths,
      commands: fixtureCommands,
      run,
      checkpoints: run.checkpoints,
      role: 'test',
    });
    expect(evals.map((row) => row.status)).toEqual(run.checkpoints.map(() => 'ok'));

    const [champion] = evals;
    if (champion === undefined) throw new Error('no eval');
    const reserve = await laneActivities.evaluateReserve({
      paths,
      commands: fixtureCommands,
      champion,
      checkpointName: champion.checkpoint_name,
    });
    expect(reserve.row).toMatchObject({ role: 'reserve', status: 'ok' });

    const packaged = await packageActivities.packageChampion({
      paths,
      command: fixtureCommands.package ?? [],
      champion: { ...champion, requested: new Date().toISOString() },
    });
    expect(packaged).toMatchObject({ launched: true, exitCode: 0 });
    expect(await readdir(join(paths.stateDir, 'packages'))).toHaveLength(1);
    expect((await readdir(join(paths.stateDir, 'logs'))).sort()).toEqual([
      `${runId}.${champion.checkpoint_name.replace(/\.pt$/, '')}.reserve.eval.log`,
      `${runId}.test.eval.log`,
      `${runId}.test.jobs.json`,
      `${runId}.train.log`,
      `package-${runId}-${String(champion.epoch).padStart(4, '0')}.log`,
      'split-gen-001.log',
    ]);
  });
});
