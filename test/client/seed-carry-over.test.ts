// `champion-loop start LOOP --from-seed-state-dir DIR`: a state dir the Python seed left after
// three generations (a seed-format ledger from test/helpers/seed-ledger.ts; generation 3's runs
// trained for real by the fixture stack, its split built by the split commands) goes on in
// generation 3: nothing of the seed's trained again, its unscored checkpoint scored, its
// never-packaged champion packaged. A real dev server, in-process workers, the real CLI.
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse, stringify } from 'yaml';
import { buildSplit } from '../../src/activities/build-split.js';
import { loopReport } from '../../src/client/report-command.js';
import { startLoop } from '../../src/client/loop-start.js';
import { readLedgerCopy } from '../../src/ledger-copy/copy-files.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { roundEnsembleRunId } from '../../src/rules/ids.js';
import { loopWorkflowId, packagingWorkflowId } from '../../src/workflows/ids.js';
import { packagingQuery, stopSignal } from '../../src/workflows/messages.js';
import { sortedLines } from '../helpers/bounded-loop.js';
import { rowsOf } from '../helpers/loop-checks.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';
import { seedLedger, type SeedLedger } from '../helpers/seed-ledger.js';
import { championLoopAt } from './champion-loop-cli.js';

const LOOP = 'carried';
/** No reserve check comes due while the test runs, so the loop stays in generation 3. */
const SETTINGS = { saturation_evals: 1000, max_reserve_checks: 2 };

describe('a seed loop carried over', () => {
  let harness: LoopHarness;
  let seed: SeedLedger;
  let seedDir: string;
  let seedRuns: string;
  let loopYaml: string;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'base' }, { name: 'wide', overrides: { fixture_quality: 0.6 } }],
    });
    seedDir = path.join(harness.dir, 'seed', 'state');
    seedRuns = path.join(harness.dir, 'seed', 'runs');
    const config = harness.configFor(LOOP, { ...SETTINGS, runs_root: seedRuns });
    seed = seedLedger({
      generations: 3,
      rounds: 2,
      candidates: ['base', 'wide'],
      seed: 3,
      stateDir: seedDir,
      runsRoot: seedRuns,
      baseSeed: config.base_seed,
    });
    // What the test relies on: a champion of a training run, never packaged, and a checkpoint left unscored.
    expect(seed.expected.champion).toMatch(/^champ-g003-/);
    expect(
      rowsOf(seed.rows, 'package').some((row) => `${row.run_id}/${row.checkpoint_name}` === seed.expected.champion),
    ).toBe(false);
    expect(Object.keys(seed.expected.unscored)).toEqual(['champ-g003-r0002-base']);

    // Generation 3 as the seed left it on disk: its split, its job configs, its trained runs, its test reports.
    const paths = {
      workdir: harness.dir,
      stateDir: seedDir,
      runsRoot: seedRuns,
      dataRoot: config.data_root,
      scoreCacheDir: null,
    };
    const { path: split } = await buildSplit({
      paths,
      commands: FIXTURE_COMMANDS,
      generation: 3,
      splitSeed: config.base_seed + 3,
    });
    for (const run of rowsOf(seed.rows, 'run').filter((row) => row.generation === 3 && row.status === 'trained')) {
      await mkdir(path.dirname(run.config_path), { recursive: true });
      await writeFile(run.config_path, stringify({ fixture_epochs: 4, fixture_quality: 0.5, split, seed: run.seed }));
      const [node, script] = FIXTURE_COMMANDS.train as [string, string];
      await execa(node, [script, '--config', run.config_path, '--output-root', seedRuns, '--run-id', run.run_id], {
        cwd: harness.dir,
      });
    }
    for (const row of rowsOf(seed.rows, 'eval').filter((row) => row.generation === 3 && row.status === 'ok')) {
      await mkdir(path.dirname(row.eval_json), { recursive: true });
      await writeFile(row.eval_json, JSON.stringify({ role: row.role, checkpoint: row.checkpoint, ...row.result }));
    }
    await writeFile(path.join(seedDir, 'ledger.jsonl'), seed.text);
    loopYaml = path.join(harness.dir, `loop-${LOOP}.yaml`);
    const base = parse(await readFile(harness.configFile, 'utf8')) as Record<string, unknown>;
    await writeFile(
      loopYaml,
      stringify({ ...base, ...SETTINGS, state_dir: `loops/${LOOP}/state`, runs_root: seedRuns }),
    );
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('goes on in generation 3 with its champion and front, trains none of its runs again, scores what it left and packages its champion', async () => {
    const started = await championLoopAt(harness.server, [
      'start',
      LOOP,
      '--config',
      loopYaml,
      '--from-seed-state-dir',
      seedDir,
    ]);
    expect(started.exitCode, String(started.stderr)).toBe(0);
    expect(started.stdout).toMatch(
      new RegExp(
        `resumed loop ${LOOP} in generation 3 from the seed's ledger .*ledger\\.jsonl \\(${seed.rows.length} rows, copied to `,
      ),
    );

    const first = await harness.view(LOOP);
    expect(first.generation).toBe(3);
    const { expected } = seed;
    expect(`${first.champion?.run_id}/${first.champion?.checkpoint_name}`).toBe(expected.champion);
    expect(first.reserve_checks).toBe(expected.reserveChecks);
    expect(first.round).toBeGreaterThanOrEqual(expected.lastRound);

    // Two rounds of its own, and the seed's champion packaged.
    await harness.waitFor(LOOP, (view) => view.round >= expected.lastRound + 2, 120_000);
    const packagedChampion = (rows: readonly LedgerRow[]) =>
      rowsOf(rows, 'package')
        .filter((row) => `${row.run_id}/${row.checkpoint_name}` === expected.champion)
        .map((row) => `${row.event}${row.event === 'finished' ? ` ${row.exit_code}` : ''}`);
    await expect
      .poll(async () => packagedChampion((await harness.ledger(LOOP)).rows), { timeout: 60_000, interval: 500 })
      .toEqual(['launched', 'finished 0']);
    // The first round ensemble after the carry-over (round 3) holds the seed's trained runs of the
    // generation too: the round-ensemble pool is rebuilt from the seed's rows (issue 23).
    const firstEnsemble = roundEnsembleRunId(3, expected.lastRound + 1);
    await expect
      .poll(async () => rowsOf((await harness.ledger(LOOP)).rows, 'run').some((row) => row.run_id === firstEnsemble), {
        timeout: 120_000,
        interval: 500,
      })
      .toBe(true);
    const ensemble = rowsOf((await harness.ledger(LOOP)).rows, 'run').find((row) => row.run_id === firstEnsemble);
    const memberRuns = (ensemble?.members ?? []).map((member) => (member as { run_id: string }).run_id);
    const seedTrained = rowsOf(seed.rows, 'run')
      .filter((row) => row.generation === 3 && row.status === 'trained')
      .map((row) => row.run_id);
    expect(seedTrained.length).toBeGreaterThanOrEqual(2);
    expect(memberRuns).toEqual(expect.arrayContaining(seedTrained));
    expect(
      memberRuns.some((runId) => runId.startsWith(`champ-g003-r${String(expected.lastRound + 1).padStart(4, '0')}-`)),
    ).toBe(true);
    await harness.client.workflow.getHandle(loopWorkflowId(LOOP)).signal(stopSignal);
    const result = await harness.result(LOOP);
    expect(result.view.generation).toBe(3);
    // Packaging may still be packaging the last champion after the loop stopped (its two rows came
    // after the export once, on a busy box): the export is taken once packaging has nothing left.
    await expect
      .poll(
        async () => {
          const view = await harness.client.workflow.getHandle(packagingWorkflowId(LOOP)).query(packagingQuery);
          return view.running === null && view.queued === null;
        },
        { timeout: 60_000, interval: 250 },
      )
      .toBe(true);

    const { rows } = await harness.ledger(LOOP);
    // The export is the seed's ledger, then the loop's own rows.
    expect(rows.slice(0, seed.rows.length)).toEqual(seed.rows);
    const added = rows.slice(seed.rows.length);
    expect(rowsOf(added, 'generation')).toEqual([]);
    const seedRunIds = new Set(expected.runIds);
    const newRuns = rowsOf(added, 'run');
    expect(newRuns.length).toBeGreaterThanOrEqual(2);
    expect(
      newRuns.filter((run) => seedRunIds.has(run.run_id)).map((run) => run.run_id),
      'a run of the seed trained again',
    ).toEqual([]);
    expect(newRuns.filter((run) => run.status === 'stale_run_dir').map((run) => run.run_id)).toEqual([]);
    for (const run of newRuns) expect(run.generation === 3 && run.round > expected.lastRound, run.run_id).toBe(true);
    // The checkpoint the seed left unscored is scored, once; nothing it scored is scored again.
    const evals = rowsOf(added, 'eval').filter((row) => row.role === 'test');
    expect(
      evals
        .filter((row) => seedRunIds.has(row.run_id))
        .map((row) => `${row.run_id}/${row.checkpoint_name} ${row.status}`),
    ).toEqual(['champ-g003-r0002-base/checkpoint-0002.pt ok']);
    // New rounds train on the seed generation's split, where the seed left it.
    const stateDir = path.join(harness.dir, 'loops', LOOP, 'state');
    const jobConfig = parse(
      await readFile(path.join(stateDir, 'configs', 'gen-003', 'round-0003', 'base.yaml'), 'utf8'),
    ) as { split: string };
    expect(jobConfig.split).toBe(path.join(seedDir, 'splits', 'gen-003.yaml'));
    // State: the seed's counts went on from where they were.
    const newTestEvals = evals.filter((row) => row.status === 'ok' && row.generation === 3).length;
    expect(result.view.test_evals).toBe(expected.testEvals + newTestEvals);
    expect(result.view.reserve_checks).toBe(expected.reserveChecks);

    // The loop's copy in its state dir holds the seed's rows and its own, each once.
    await expect
      .poll(async () => sortedLines(await readLedgerCopy(stateDir)), {
        timeout: 30_000,
        interval: 250,
      })
      .toEqual(sortedLines(rows));
    // The report shows the seed's generations.
    expect((await loopReport(harness.client, LOOP, new Date())).generations).toBe(3);

    // Carried over once: with history of its own, the loop is refused a second carry-over (and a plain start goes on from its own record).
    await expect(
      startLoop(harness.client, LOOP, harness.configFor(LOOP, { ...SETTINGS, runs_root: seedRuns }), {
        seedStateDir: seedDir,
      }),
    ).rejects.toThrow(/already has a history in Temporal .*pick a new loop id/);
  }, 240_000);
});
