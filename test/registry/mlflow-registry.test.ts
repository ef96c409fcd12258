import { existsSync } from 'node:fs';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parse, stringify } from 'yaml';
import { MockActivityEnvironment } from '@temporalio/testing';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageLog } from '../../src/activities/package-champion.js';
import { PACKAGE_MANIFEST } from '../../src/artifacts/package-store.js';
import type { PackageChampion } from '../../src/activities/types.js';
import type { LedgerRow, PackageRow } from '../../src/ledger/rows.js';
import type { MlflowSettings } from '../../src/registry/mlflow-settings.js';
import { registerChampion, sourceUri, type Registration } from '../../src/registry/register-champion.js';
import { loopWorkflowId, packagingWorkflowId } from '../../src/workflows/ids.js';
import { packagingQuery, stopSignal } from '../../src/workflows/messages.js';
import type { PackagingView } from '../../src/workflows/packaging-view.js';
import { rowsOf } from '../helpers/loop-checks.js';
import { championLoop, championLoopAt } from '../client/champion-loop-cli.js';
import { workflowBundle } from '../helpers/workflow-bundle.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { startObjectStore, type ObjectStoreServer } from '../helpers/object-store.js';
import {
  freePort,
  modelVersions,
  provisionMlflow,
  startMlflowServer,
  versionByAlias,
  type MlflowServer,
  type ModelVersion,
} from '../helpers/mlflow.js';

/** A loop, a registry that starts late on a loaded machine (45 s seen), and packages: far above the 2 min default. */
const TEST_TIMEOUT_MS = 420_000;

/** Poll until `done`, failing with the last value seen. */
async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean, timeoutMs: number) {
  const deadline = Date.now() + timeoutMs;
  let last: T | undefined;
  while (Date.now() < deadline) {
    last = await read();
    if (done(last)) return last;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`timed out waiting for ${what}; last seen: ${JSON.stringify(last)}`);
}

const championKey = (row: Pick<PackageRow, 'generation' | 'run_id' | 'checkpoint_name'>) =>
  `${row.generation}/${row.run_id}/${row.checkpoint_name}`;

describe('packaged champions registered in MLflow (loop.yaml mlflow)', () => {
  let harness: LoopHarness;
  let port: number;
  let mlflow: MlflowServer | undefined;
  let store: ObjectStoreServer | undefined;

  beforeAll(async () => {
    provisionMlflow();
    port = await freePort();
    harness = await createLoopHarness({
      candidates: [
        { name: 'base' },
        { name: 'wide', overrides: { fixture_quality: 0.7 } },
        { name: 'narrow', overrides: { fixture_quality: 0.3 } },
      ],
      loop: { saturation_evals: 8, max_reserve_checks: 1 },
    });
  }, 600_000);

  afterAll(async () => {
    await harness?.dispose();
    await mlflow?.stop();
    await store?.dispose();
  });

  const settings = (model: string): MlflowSettings => ({
    tracking_uri: `http://127.0.0.1:${port}`,
    model_name: model,
    alias: 'champion',
    retry_for: '10m',
  });
  const packagingView = (loopId: string): Promise<PackagingView | null> =>
    harness.client.workflow
      .getHandle(packagingWorkflowId(loopId))
      .query(packagingQuery)
      .catch(() => null);
  const stop = async (loopId: string) => {
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await harness.result(loopId);
  };
  /** After a stop: nothing left to package, and no registration waiting or retrying. */
  const settled = (loopId: string, timeoutMs: number) =>
    until(
      `loop ${loopId}'s packaging and registrations to settle`,
      () => packagingView(loopId),
      (view) => view !== null && view.running === null && view.queued === null && view.registry?.pending === 0,
      timeoutMs,
    );
  /** The champions packaged successfully, in packaging order. */
  const packaged = (rows: readonly LedgerRow[]) =>
    rowsOf(rows, 'package').filter((row) => row.event === 'finished' && row.exit_code === 0);

  /** Every champion packaged has one version with its tags, and the alias is on the newest. */
  async function expectRegistered(loopId: string, model: string): Promise<ModelVersion[]> {
    const { rows } = await harness.ledger(loopId);
    const finished = packaged(rows);
    const packages = rowsOf(rows, 'package');
    // The exporter folds package outcomes only: every launched row is a package command's, none a registration's.
    expect(packages.filter((row) => row.event === 'launched').every((row) => Array.isArray(row.command))).toBe(true);
    expect(packages.filter((row) => row.event === 'launched')).toHaveLength(
      packages.filter((row) => row.event === 'finished').length,
    );
    const versions = await modelVersions(mlflow?.uri ?? '', model);
    const keys = [...new Set(finished.map(championKey))];
    expect(
      versions.map((version) => `${version.tags.generation}/${version.tags.run}/${version.tags.checkpoint}`),
    ).toEqual(keys);
    const tests = rowsOf(rows, 'eval').filter((row) => row.role === 'test');
    const verdicts = rowsOf(rows, 'reserve_check');
    for (const version of versions) {
      const { tags } = version;
      expect(tags.loop).toBe(loopId);
      const evalRow = tests.find(
        (row) =>
          String(row.generation) === tags.generation &&
          row.run_id === tags.run &&
          row.checkpoint_name === tags.checkpoint,
      );
      expect(evalRow?.result, `test eval row of version ${version.version}`).toBeTruthy();
      expect(tags.fail_to_pass_count).toBe(String(evalRow?.result?.fail_to_pass_count));
      expect(tags.pass_to_fail_count).toBe(String(evalRow?.result?.pass_to_fail_count));
      // The verdicts so far when it was registered: a beginning of what the ledger holds now.
      const now = verdicts
        .filter(
          (row) =>
            String(row.generation) === tags.generation &&
            row.run_id === tags.run &&
            row.checkpoint_name === tags.checkpoint,
        )
        .map((row) => row.verdict);
      const then = tags.reserve_verdicts === 'none' ? [] : (tags.reserve_verdicts ?? '').split(',');
      expect(now.slice(0, then.length)).toEqual(then);
      expect(tags.package_path?.startsWith(path.join(harness.configFor(loopId).state_dir, 'packages'))).toBe(true);
      expect(existsSync(tags.package_path ?? '')).toBe(true);
      expect(version.source).toBe(sourceUri(tags.package_path ?? ''));
    }
    const newest = finished[finished.length - 1];
    const onAlias = await versionByAlias(mlflow?.uri ?? '', model, 'champion');
    expect(onAlias?.tags.run).toBe(newest?.run_id);
    expect(onAlias?.tags.checkpoint).toBe(newest?.checkpoint_name);
    expect(onAlias?.version).toBe(versions[versions.length - 1]?.version);
    return versions;
  }

  it(
    'keeps the package while the registry is down, and registers it once the registry is back',
    async () => {
      await harness.startWith('down', { mlflow: settings('down-gate') });
      const waiting = await until(
        'a registration waiting for the registry',
        () => packagingView('down'),
        (view) => (view?.registry?.pending ?? 0) >= 1,
        120_000,
      );
      expect(waiting?.registry?.last).toBeNull();
      await stop('down');

      // The package rows stand as if there were no registry: launched and finished with exit code 0.
      const before = rowsOf((await harness.ledger('down')).rows, 'package');
      expect(before.some((row) => row.event === 'finished' && row.exit_code === 0)).toBe(true);
      expect(before.filter((row) => row.event === 'launch_failed')).toEqual([]);

      const started = Date.now();
      mlflow = await startMlflowServer(port, 240_000);
      console.info(`mlflow server healthy in ${Date.now() - started} ms`);
      const done = await settled('down', 180_000);
      expect(done?.registry?.last?.status).toBe('registered');
      await expectRegistered('down', 'down-gate');
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'registers each new champion and moves the alias champion to the newest',
    async () => {
      expect(mlflow).toBeDefined();
      await harness.startWith('up', { mlflow: settings('gate') });
      const uri = mlflow?.uri ?? '';
      const first = await until(
        'a first registered version',
        () => modelVersions(uri, 'gate'),
        (v) => v.length >= 1,
        120_000,
      );
      const firstOnAlias = await until(
        'the alias on the first version',
        () => versionByAlias(uri, 'gate', 'champion'),
        (version) => version !== null,
        30_000,
      );
      // On a registered version: the first, or a newer one if a second champion was registered
      // between the two reads (seen once in a full run on a busy box).
      const listed = (await modelVersions(uri, 'gate')).map((version) => version.version);
      expect(listed).toContain(firstOnAlias?.version);
      expect(Number(firstOnAlias?.version)).toBeGreaterThanOrEqual(Number(first[0]?.version));
      // `status` of the running loop names a registered version (the newest by then, maybe a later one).
      const status = await championLoopAt(harness.server, ['status', 'up']);
      expect(status.stdout).toMatch(
        /^model registry: gate version \d+ is 'champion': champ-g\d{3}-r\d{4}-\S+ \S+ \(generation \d+\)/m,
      );
      await until(
        'a second registered version',
        () => modelVersions(uri, 'gate'),
        (v) => v.length >= 2,
        180_000,
      );
      await stop('up');
      await settled('up', 180_000);
      const versions = await expectRegistered('up', 'gate');
      const onAlias = await versionByAlias(uri, 'gate', 'champion');
      // The alias has moved on to the newest of at least two versions.
      expect(versions.length).toBeGreaterThanOrEqual(2);
      expect(Number(onAlias?.version)).toBe(Math.max(...versions.map((version) => Number(version.version))));

      // Registering the newest champion again (a retried or replayed activity) finds its version, makes none.
      const { rows } = await harness.ledger('up');
      const newest = packaged(rows).at(-1) as PackageRow;
      const evalRow = rowsOf(rows, 'eval').find(
        (row) =>
          row.role === 'test' &&
          row.generation === newest.generation &&
          row.run_id === newest.run_id &&
          row.checkpoint_name === newest.checkpoint_name,
      );
      if (!evalRow) throw new Error('no test eval row for the newest packaged champion');
      const champion: PackageChampion = {
        generation: evalRow.generation,
        run_id: evalRow.run_id,
        epoch: evalRow.epoch,
        checkpoint_name: evalRow.checkpoint_name,
        checkpoint: evalRow.checkpoint,
        config_path: evalRow.config_path,
        eval_json: evalRow.eval_json,
        ...(evalRow.manifest === undefined ? {} : { manifest: evalRow.manifest }),
        requested: evalRow.finished,
      };
      const config = harness.configFor('up');
      const again: Registration = await new MockActivityEnvironment().run(registerChampion, {
        loopId: 'up',
        settings: settings('gate'),
        paths: {
          workdir: config.workdir,
          stateDir: config.state_dir,
          runsRoot: config.runs_root,
          dataRoot: config.data_root,
          scoreCacheDir: null,
        },
        champion,
        packageLog: packageLog(config.state_dir, champion),
      });
      expect(again.created).toBe(false);
      expect(again.version).toBe(onAlias?.version);
      expect(await modelVersions(uri, 'gate')).toHaveLength(versions.length);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'reports a registration that gave up after retry_for in the packaging query, and keeps the package',
    async () => {
      const nowhere = await freePort();
      await harness.startWith('gone', {
        mlflow: { ...settings('gone-gate'), tracking_uri: `http://127.0.0.1:${nowhere}`, retry_for: '3s' },
      });
      const failed = await until(
        'a registration that gave up',
        () => packagingView('gone'),
        (view) => view?.registry?.last?.status === 'failed',
        180_000,
      );
      const last = failed?.registry?.last;
      expect(last?.status === 'failed' ? last.error : '').toMatch(/did not answer .*ECONNREFUSED/);
      await stop('gone');
      await settled('gone', 180_000);
      const packages = rowsOf((await harness.ledger('gone')).rows, 'package');
      expect(packages.some((row) => row.event === 'finished' && row.exit_code === 0)).toBe(true);
      expect(packages.filter((row) => row.event === 'launch_failed')).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'with an artifact store, registers each package by its s3:// URI, from which any host can fetch it',
    async () => {
      expect(mlflow).toBeDefined();
      store = await startObjectStore();
      await store.bucket('gate-artifacts');
      Object.assign(process.env, store.env);
      const artifacts = { url: 's3://gate-artifacts/loops', endpoint: store.endpoint };
      await harness.startWith('stored', { mlflow: settings('stored-gate'), artifacts });
      await until(
        'a registered version',
        () => modelVersions(mlflow?.uri ?? '', 'stored-gate'),
        (v) => v.length >= 1,
        180_000,
      );
      await stop('stored');
      await settled('stored', 180_000);

      const finished = packaged((await harness.ledger('stored')).rows);
      expect(finished.length).toBeGreaterThanOrEqual(1);
      for (const row of finished)
        expect(row.package_uri).toBe(
          `s3://gate-artifacts/loops/packages/stored/g${String(row.generation).padStart(3, '0')}/${row.run_id}/${row.checkpoint_name}`,
        );
      const versions = await modelVersions(mlflow?.uri ?? '', 'stored-gate');
      expect(versions.map((version) => version.source)).toEqual([...new Set(finished.map((row) => row.package_uri))]);
      for (const version of versions) expect(version.tags.package_uri).toBe(version.source);

      // Fetched with the CLI into a folder of its own, the package is the one the package command made.
      const newest = versions.at(-1);
      const local = newest?.tags.package_path ?? '';
      const yamlFile = path.join(harness.dir, 'stored.yaml');
      await writeFile(yamlFile, stringify({ ...parse(await readFile(harness.configFile, 'utf8')), artifacts }));
      const into = path.join(harness.dir, 'fetched-package');
      const fetched = await championLoop(['fetch-package', newest?.source ?? '', '--config', yamlFile, '--out', into], {
        env: store.env,
      });
      expect(fetched.stdout).toMatch(/files, \d+ bytes, each checked by sha256/);
      const names = (await readdir(local)).sort();
      expect((await readdir(into)).filter((name) => name !== PACKAGE_MANIFEST).sort()).toEqual(names);
      for (const name of names)
        expect(await readFile(path.join(into, name))).toEqual(await readFile(path.join(local, name)));
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'replays the packaging histories that registered champions (patch model-registry) without a determinism error',
    async () => {
      const ids = ['down', 'up', 'gone', 'stored'].map(packagingWorkflowId);
      const histories = await Promise.all(
        ids.map(async (workflowId) => ({
          workflowId,
          history: await harness.client.workflow.getHandle(workflowId).fetchHistory(),
        })),
      );
      for (const { history } of histories) {
        const scheduled = (history.events ?? []).map(
          (event) => event.activityTaskScheduledEventAttributes?.activityType?.name,
        );
        expect(scheduled).toContain('registerChampion');
      }
      const failures: string[] = [];
      for await (const result of Worker.runReplayHistories(
        { workflowBundle: await workflowBundle(), replayName: 'model-registry-replay' },
        histories,
      ))
        if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
      expect(failures).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});
