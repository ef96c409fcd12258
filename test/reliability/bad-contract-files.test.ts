import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchEvalLog } from '../../src/activities/support/paths.js';
import { runIdFor } from '../../src/rules/ids.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';

// A training stack that writes files breaking the subprocess contract (docs/contract.md), one way
// per candidate in round 1. Each is answered by a train_failed run or failed eval rows with an
// error naming the file and what is wrong; no loop crashes, and round 2 trains them all again.
const CORRUPT = fileURLToPath(new URL('./fixtures/corrupt-outputs.mjs', import.meta.url));

/** Candidate -> how its round-1 run breaks the contract, and what the loop must say about it. */
const TRAINING: Record<string, { mode: string; error: RegExp }> = {
  'sel-json': { mode: 'selection-not-json', error: /selection\.json.*(JSON|json)/ },
  'sel-missing': {
    mode: 'selection-names-missing',
    error: /selection\.json names checkpoint checkpoint-0099\.pt, which is not a file in /,
  },
  'sel-epoch': { mode: 'selection-no-epoch', error: /selection\.json.*checkpoint.*-NNNN/ },
  'sel-escape': { mode: 'selection-escapes', error: /selection\.json.*checkpoint.*-NNNN/ },
  'pareto-epoch': { mode: 'pareto-no-epoch', error: /pareto\.json.*checkpoint.*-NNNN/ },
};
const EVALUATION: Record<string, { mode: string; says: string; logSays?: string }> = {
  'rep-json': { mode: 'report-not-json', says: 'invalid report' },
  'rep-counts': { mode: 'report-missing-counts', says: 'fail_count' },
  'rep-negative': { mode: 'report-negative', says: 'fail_to_pass_count' },
  'rep-inconsistent': { mode: 'report-inconsistent', says: 'pass_correct_count' },
  // Training's validation scores are the band scores: the evaluator refuses them and says why in the same log.
  'val-scores': {
    mode: 'validation-scores-bad',
    says: 'evaluator ended with exit code 2',
    logSays: 'validation-epoch-0003.scores.jsonl',
  },
};

describe('contract files that break the contract', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    const names = ['healthy', ...Object.keys(TRAINING), ...Object.keys(EVALUATION)];
    harness = await createLoopHarness({ candidates: names.map((name) => ({ name })) });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('a report that is not JSON or has missing, negative or inconsistent counts, bad scores rows, a selection naming no checkpoint or one without an epoch: failed rows with the reason, and the loop goes on', async () => {
    const spec = Object.entries({ ...TRAINING, ...EVALUATION })
      .map(([name, { mode }]) => `${mode}@${runIdFor(1, 1, name)}`)
      .join(',');
    const wrap = (command: readonly string[]) => [process.execPath, CORRUPT, spec, '--', ...command];
    const commands = {
      ...harness.config.commands,
      train: wrap(FIXTURE_COMMANDS.train),
      evaluate: wrap(FIXTURE_COMMANDS.evaluate),
    };
    await harness.startWith('contract', { commands, saturation_evals: 1000 });
    await harness.waitFor('contract', (view) => view.round >= 3, 120_000);
    await harness.client.workflow.getHandle(loopWorkflowId('contract')).signal(stopSignal);
    const result = await harness.result('contract');
    const { rows, state } = await harness.ledger('contract');
    expect(stateOf(state)).toEqual(stateOf(result.view));
    const config = harness.configFor('contract');
    const runs = rowsOf(rows, 'run');
    const evals = rowsOf(rows, 'eval');
    const runOf = (name: string, round: number) => runs.find((row) => row.run_id === runIdFor(1, round, name));
    let checked = 0;

    for (const [name, { error }] of Object.entries(TRAINING)) {
      const run = runOf(name, 1);
      expect(run, name).toMatchObject({ status: 'train_failed', train_rc: 0, checkpoints: [] });
      expect(run?.error, name).toMatch(error);
      expect(
        evals.filter((row) => row.run_id === run?.run_id),
        name,
      ).toEqual([]);
      checked += 1;
    }
    // The checkpoint outside the run directory was never scored or packaged: only the refusal names it.
    expect(JSON.stringify(rows.filter((row) => row.type !== 'run'))).not.toContain('escape-0001');

    for (const [name, { says, logSays }] of Object.entries(EVALUATION)) {
      const run = runOf(name, 1);
      expect(run?.status, name).toBe('trained');
      const own = evals.filter((row) => row.run_id === run?.run_id);
      // Every checkpoint counts as scored, none with a result.
      expect(own.map((row) => row.checkpoint_name).sort(), name).toEqual([...(run?.checkpoints ?? [])].sort());
      expect(
        own.every((row) => row.status === 'failed' && row.result === null),
        name,
      ).toBe(true);
      const log = await readFile(batchEvalLog(config.state_dir, run?.run_id ?? '', 'test'), 'utf8');
      if (logSays) expect(log, name).toContain(logSays);
      for (const row of own) {
        const line = log
          .split('\n')
          .find((text) => text.includes(`eval failed ${row.run_id} ${row.checkpoint_name} test:`));
        expect(line, `${name}: ${log.slice(-2000)}`).toBeDefined();
        expect(line, name).toContain(says);
        // The row says it too, and where to read more.
        expect(row.error, name).toContain(says);
        expect(row.error, name).toContain(batchEvalLog(config.state_dir, row.run_id, 'test'));
        checked += 1;
      }
    }
    // The report's reasons name the report file itself.
    const countsLog = await readFile(batchEvalLog(config.state_dir, runIdFor(1, 1, 'rep-counts'), 'test'), 'utf8');
    expect(countsLog).toContain(path.join(config.state_dir, 'evals', runIdFor(1, 1, 'rep-counts')));

    // The loop went on: round 2 trained and scored every candidate, the ones that broke the contract too.
    for (const name of ['healthy', ...Object.keys(TRAINING), ...Object.keys(EVALUATION)]) {
      const run = runOf(name, 2);
      expect(run?.status, name).toBe('trained');
      expect(
        evals.filter((row) => row.run_id === run?.run_id).every((row) => row.status === 'ok'),
        name,
      ).toBe(true);
    }
    expect(runOf('healthy', 1)?.status).toBe('trained');
    // Nothing of the loop's was written outside its state dir and runs root.
    expect((await readdir(path.join(harness.dir, 'loops', 'contract'))).sort()).toEqual(['runs', 'state']);
    console.log(
      `contract files: ${Object.keys(TRAINING).length + Object.keys(EVALUATION).length} faults injected, ${checked} rows checked`,
    );
  });
});
