// A reset from the Web UI (or `temporal workflow reset`) of a running generation: to its last
// workflow task or to its first. The loop goes on, and the copy and the export hold every row once.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lastLoopState } from '../../src/client/ledger-export.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { copyHoldsHistory, expectCopyMatches } from '../helpers/bounded-loop.js';
import { expectEachRunAndEvalOnce, newestRowTime, rowsOf, stateOf, temporalCli } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { readLedgerCopy } from '../../src/ledger-copy/copy-files.js';

describe('a generation reset from the Web UI', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'base' }, { name: 'wide', overrides: { fixture_quality: 0.7 } }],
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  /** The loop's runs, oldest first (a hand-over, continue-as-new, starts a new run). */
  async function runsOf(loopId: string): Promise<string[]> {
    const runs: { runId: string; start: number }[] = [];
    for await (const run of harness.client.workflow.list({ query: `WorkflowId = '${loopWorkflowId(loopId)}'` })) {
      runs.push({ runId: run.runId, start: run.startTime.getTime() });
    }
    return runs.sort((a, b) => a.start - b.start).map((run) => run.runId);
  }

  async function resetAndGoOn(
    loopId: string,
    type: 'LastWorkflowTask' | 'FirstWorkflowTask',
    { handOvers = 0 }: { handOvers?: number } = {},
  ): Promise<void> {
    // max_run_events 60: the loop hands over to a new run every few jobs.
    const settings = handOvers > 0 ? { saturation_evals: 1000, max_run_events: 60 } : { saturation_evals: 1000 };
    expect((await harness.startWith(loopId, settings)).kind).toBe('started');
    let before = await harness.waitFor(loopId, (view) => view.round >= 3 && view.in_flight.length > 0, 120_000);
    while ((await runsOf(loopId)).length <= handOvers) {
      before = await harness.waitFor(loopId, (view) => view.round > before.round, 120_000);
    }
    // The first run of the loop, long closed (continued as new), when the loop has handed over.
    const baseRun = handOvers > 0 ? ['--run-id', (await runsOf(loopId))[0]!] : [];
    const reset = await temporalCli(harness.server, [
      'workflow',
      'reset',
      '--workflow-id',
      loopWorkflowId(loopId),
      ...baseRun,
      '--type',
      type,
      '--reason',
      'operator',
      '--yes',
    ]);
    expect(reset.exitCode, reset.stderr).toBe(0);
    // The reset run goes on past where the loop was.
    await harness.waitFor(loopId, (view) => view.round >= before.round + 2, 120_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const stateDir = harness.configFor(loopId).state_dir;
    await copyHoldsHistory(harness, loopId, stateDir);
    const { rows, state } = await harness.ledger(loopId);
    const copy = await readLedgerCopy(stateDir);
    expectCopyMatches(copy, rows, loopId);
    expectEachRunAndEvalOnce(rows, loopId);
    expect(rowsOf(rows, 'generation').map((row) => row.generation)).toEqual([1]);
    expect(stateOf(state)).toEqual(stateOf(result.view));
    // `status` reads the newest runs only: the reset's base run is not among them.
    const status = (await lastLoopState(harness.client, loopId)).state;
    expect(stateOf(status)).toEqual(stateOf(state));
    expect(status.updated).toBe(newestRowTime(rows));
  }

  it('to its last workflow task: the loop goes on and every row is recorded once', async () => {
    await resetAndGoOn('reset-last', 'LastWorkflowTask');
  });

  it('to its first workflow task: the loop goes on from its start without training a run again, every row once', async () => {
    await resetAndGoOn('reset-first', 'FirstWorkflowTask');
  });

  it('of its first run after two hand-overs: the runs the reset left behind are left out, every row once', async () => {
    // The reset run starts the loop again from its first workflow task; the runs that continued
    // the first one (closed as continued-as-new, the newest terminated) are a timeline abandoned.
    await resetAndGoOn('reset-first-run', 'FirstWorkflowTask', { handOvers: 2 });
  });
});
