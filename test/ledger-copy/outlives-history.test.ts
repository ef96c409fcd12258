// The ledger and the loop outlive what operators and retention do to history: terminate, cancel,
// delete. A real dev server, real workers and the fixture stack; the `temporal` CLI does the harm.
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportLedger, historyLedger } from '../../src/client/ledger-export.js';
import { loopReport } from '../../src/client/report-command.js';
import { stateCopyPath } from '../../src/ledger-copy/copy-files.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp, copyHoldsHistory, expectCopyMatches } from '../helpers/bounded-loop.js';
import { expectEachRunAndEvalOnce, rowsOf, stateOf, temporalCli } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import type { StateJson } from '../../src/ledger/loop-state.js';
import { championLoopAt } from '../client/champion-loop-cli.js';

/** Generation 2 opens once generation 1 had its one reserve check (after 8 test evals). */
const SETTINGS: Partial<LoopConfig> = { saturation_evals: 8, max_reserve_checks: 1 };

function expectEachOnce(rows: readonly LedgerRow[]): void {
  expectEachRunAndEvalOnce(rows, 'the ledger');
  const generations = rowsOf(rows, 'generation').map((row) => row.generation);
  expect(generations, 'each generation opened once, in order').toEqual(generations.map((_, index) => index + 1));
}

describe('a loop whose history is terminated, cancelled or deleted', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'base' },
        { name: 'wide', overrides: { fixture_quality: 0.7 } },
        { name: 'narrow', overrides: { fixture_quality: 0.3 } },
      ],
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  /** Start a loop, let it reach generation 2 with work in flight, end it with `temporal workflow <how>`, start it again. */
  async function endAndStartAgain(loopId: string, how: 'terminate' | 'cancel'): Promise<void> {
    expect((await harness.startWith(loopId, SETTINGS)).kind).toBe('started');
    const before = await harness.waitFor(
      loopId,
      (view) => view.generation === 2 && view.round >= 1 && view.in_flight.length > 0,
      120_000,
    );
    const ended = await temporalCli(harness.server, [
      'workflow',
      how,
      '--workflow-id',
      loopWorkflowId(loopId),
      ...(how === 'terminate' ? ['--reason', 'operator'] : []),
    ]);
    expect(ended.exitCode, ended.stderr).toBe(0);
    await expect
      .poll(async () => (await harness.client.workflow.getHandle(loopWorkflowId(loopId)).describe()).status.name, {
        timeout: 30_000,
      })
      .not.toBe('RUNNING');

    const again = await harness.startWith(loopId, SETTINGS);
    expect(again.kind).toBe('resumed');
    expect(again.kind === 'resumed' && again.generation).toBe(2);
    const resumed = await harness.view(loopId);
    expect(resumed.generation).toBe(2);
    expect(resumed.champion?.run_id).toBe(before.champion?.run_id);
    expect(resumed.round).toBeGreaterThanOrEqual(before.round);
    // It goes on: more rounds of generation 2, then a clean stop.
    await harness.waitFor(loopId, (view) => view.generation > 2 || view.round >= before.round + 2, 120_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);

    const copy = await copyCaughtUp(harness, loopId, harness.configFor(loopId).state_dir);
    const { rows, state } = await harness.ledger(loopId);
    expectEachOnce(rows);
    expectCopyMatches(copy, rows, loopId);
    expect(stateOf(state)).toEqual(stateOf(result.view));
    expect(rowsOf(rows, 'generation').map((row) => row.reason)).toEqual([
      'initial',
      'max_reserve_checks',
      ...rowsOf(rows, 'generation')
        .slice(2)
        .map(() => 'max_reserve_checks'),
    ]);
    // state.json in the state dir is the seed's, kept with the ledger.
    const stateCopy = JSON.parse(await readFile(stateCopyPath(harness.configFor(loopId).state_dir), 'utf8')) as object;
    expect(stateOf(stateCopy)).toEqual(stateOf(result.view));
  }

  it('terminated in generation 2 and started again: it goes on in generation 2 with its champion, every row once', async () => {
    await endAndStartAgain('terminated', 'terminate');
  });

  it('cancelled in generation 2 and started again: the same', async () => {
    await endAndStartAgain('cancelled', 'cancel');
  });

  it('with every closed run deleted (what retention does), the export, the report and a resumption come from the copy', async () => {
    const loopId = 'retained';
    expect((await harness.startWith(loopId, SETTINGS)).kind).toBe('started');
    await harness.waitFor(loopId, (view) => view.generation === 2 && view.round >= 2, 120_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const config = harness.configFor(loopId, SETTINGS);
    await copyCaughtUp(harness, loopId, config.state_dir);
    const before = await harness.ledger(loopId);
    expect(rowsOf(before.rows, 'generation').map((row) => row.generation)).toEqual([1, 2]);

    // Every run of the loop, closed now, deleted as retention would (visibility may list a run late: again until none is left).
    let deletedRuns = 0;
    await expect
      .poll(
        async () => {
          const listed = await temporalCli(harness.server, [
            'workflow',
            'list',
            '--query',
            `LoopId="${loopId}" AND ExecutionStatus!="Running"`,
            '--output',
            'json',
          ]);
          const executions = (
            JSON.parse(listed.stdout || '[]') as { execution: { workflowId: string; runId: string } }[]
          ).map((entry) => entry.execution);
          for (const { workflowId, runId } of executions) {
            const deleted = await temporalCli(harness.server, [
              'workflow',
              'delete',
              '--workflow-id',
              workflowId,
              '--run-id',
              runId,
              '--yes',
            ]);
            if (deleted.exitCode === 0) deletedRuns += 1;
          }
          return historyLedger(harness.client, loopId).then(
            () => 'still there',
            () => 'gone',
          );
        },
        { timeout: 60_000, interval: 1_000 },
      )
      .toBe('gone');
    // Generation runs (a continue-as-new chain), training runs, reserve checks.
    expect(deletedRuns).toBeGreaterThan(5);
    // (The packaging workflow, still open, keeps its history: the package rows come from both.)

    const after = await exportLedger(harness.client, loopId, { stateDir: config.state_dir, config });
    // Without --config too: the packaging workflow, still open, says where the loop's state dir is.
    expect((await exportLedger(harness.client, loopId)).rows).toEqual(after.rows);
    // The same rows (packaging, still open, may have recorded its last champion since).
    const notPackage = (rows: readonly LedgerRow[]) => rows.filter((row) => row.type !== 'package');
    expect(notPackage(after.rows)).toEqual(notPackage(before.rows));
    expect(after.rows).toEqual(expect.arrayContaining(before.rows));
    expect(stateOf(after.state)).toEqual(stateOf(result.view));
    expect(after.fromCopyOnly).toBe(before.rows.filter((row) => row.type !== 'package').length);
    const report = await loopReport(harness.client, loopId, new Date(), { stateDir: config.state_dir, config });
    expect(report.generations).toBe(2);
    expect(report.html).toContain('Generation 1');

    // `status --config`, as the no-such-loop message says (issue 24: status did not take --config).
    const loopYaml = path.join(harness.dir, `loop-${loopId}.yaml`);
    await writeFile(
      loopYaml,
      (await readFile(harness.configFile, 'utf8')) +
        `state_dir: ${JSON.stringify(config.state_dir)}\nruns_root: ${JSON.stringify(config.runs_root)}\n`,
    );
    const status = await championLoopAt(harness.server, ['status', loopId, '--config', loopYaml]);
    expect(status.exitCode, String(status.stderr)).toBe(0);
    expect(status.stdout).toContain(
      `loop ${loopId} has no history left; its last state from the ledger copy in ${config.state_dir}`,
    );
    expect(status.stdout).toContain(`generation 2`);
    const json = JSON.parse(
      String((await championLoopAt(harness.server, ['status', loopId, '--config', loopYaml, '--json'])).stdout),
    ) as StateJson;
    expect(stateOf(json)).toEqual(stateOf(result.view));

    // Started again with no history at all: it goes on from the copy, in generation 2.
    const again = await harness.startWith(loopId, SETTINGS);
    expect(again.kind === 'resumed' && again.from).toMatch(/ledger copy/);
    expect((await harness.view(loopId)).generation).toBe(2);
    expect((await harness.view(loopId)).champion?.run_id).toBe(result.view.champion?.run_id);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await harness.result(loopId);
    await copyHoldsHistory(harness, loopId, config.state_dir);
    const resumed = await exportLedger(harness.client, loopId);
    expectEachOnce(resumed.rows);
    expect(notPackage(resumed.rows).slice(0, notPackage(before.rows).length)).toEqual(notPackage(before.rows));
  }, 240_000);
});
