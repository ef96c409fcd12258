import { afterEach, describe, expect, it } from 'vitest';
import { runHistories } from '../../src/ledger-copy/history-runs.js';
import { generationRunOf, type HistoryEvent } from '../../src/ledger/history/index.js';
import { lastLoopState } from '../../src/client/ledger-export.js';
import { stateFromLedger } from '../../src/ledger/from-ledger.js';
import { foldSettingsOf } from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { adoptSignal, runReportedSignal, stopNowSignal } from '../../src/workflows/messages.js';
import { evalKey, newestRowTime, rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness } from '../helpers/loop-harness.js';

const ROUNDS = 4;
// Training of the round after the last one hangs, so both lanes sit on it and nothing else can run:
// every loop, forced to continue-as-new or not, ends with exactly the runs of rounds 1..ROUNDS.
const HANG = ['a', 'b'].map((name) => `hang:champ-g001-r${String(ROUNDS + 1).padStart(4, '0')}-${name}`).join(',');

/** Run the same loop on a server of its own until round ROUNDS is in, then stop it at once. */
async function runLoop(settings?: Record<string, unknown>) {
  const harness = await createLoopHarness({
    candidates: [
      { name: 'a', overrides: { fixture_quality: 0.3 } },
      { name: 'b', overrides: { fixture_quality: 0.7 } },
    ],
    loop: { saturation_evals: 1000, ...settings },
  });
  try {
    await harness.start('same');
    await harness.waitFor(
      'same',
      (view) =>
        view.round === ROUNDS + 1 &&
        view.in_flight.length === 2 &&
        view.in_flight.every((flight) => flight.jobId.includes(`-r000${ROUNDS + 1}-`)),
      120_000,
    );
    await harness.client.workflow.getHandle(loopWorkflowId('same')).signal(stopNowSignal);
    const result = await harness.result('same');
    const { rows, state } = await harness.ledger('same');
    // What `status` shows of the stopped loop, read from its newest runs only.
    const status = (await lastLoopState(harness.client, 'same')).state;
    const histories = await runHistories(harness.client, loopWorkflowId('same'));
    const chain = histories.map(generationRunOf);
    const jsonl = rows.map((row) => JSON.stringify(row)).join('\n');
    const folded = stateFromLedger(jsonl, 'ledger.jsonl', foldSettingsOf(harness.config), harness.config.state_dir);
    return { result, rows, state, status, folded, chain, histories };
  } finally {
    await harness.dispose();
  }
}

/** The names of the signals a generation run received, and of those it sent, over a loop's runs. */
function signalsOf(histories: readonly (readonly HistoryEvent[])[]) {
  const events = histories.flat();
  return {
    received: events.flatMap((event) => event.workflowExecutionSignaledEventAttributes?.signalName ?? []),
    sent: events.flatMap((event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName ?? []),
  };
}

/** What must not differ between two loops: each run and eval once, with the same outcome (times and paths aside). */
function jobsOf(rows: readonly LedgerRow[]) {
  const runs = rowsOf(rows, 'run').map(
    (row) => `${row.run_id} ${row.status} ${row.seed} ${row.epochs_run} ${row.checkpoints.join(',')}`,
  );
  // An ensemble's sha256 is its manifest's, which names the loop's own (temporary) paths.
  const evals = rowsOf(rows, 'eval').map(
    (row) =>
      `${evalKey(row)} ${row.status} ${JSON.stringify(row.result)} ${row.manifest ? 'manifest' : row.checkpoint_sha256}`,
  );
  return { runs: [...runs].sort(), evals: [...evals].sort(), runCount: runs.length, evalCount: evals.length };
}

describe('a loop forced to continue-as-new while runs are in flight', () => {
  afterEach(() => {
    delete process.env.FIXTURE_FAIL_TRAIN;
  });

  it('records the same runs and evals, each exactly once, as the same loop left alone, and folds to the state it reports', async () => {
    process.env.FIXTURE_FAIL_TRAIN = HANG;
    const plain = await runLoop();
    // Continue-as-new every 60 events, at the cap of loop.yaml max_run_events (the server's own
    // suggestion is forced in test/reliability/continue-as-new-faults.test.ts).
    const forced = await runLoop({ max_run_events: 60 });

    for (const loop of [plain, forced]) {
      const jobs = jobsOf(loop.rows);
      expect(new Set(rowsOf(loop.rows, 'run').map((row) => row.run_id)).size).toBe(jobs.runCount);
      expect(new Set(rowsOf(loop.rows, 'eval').map(evalKey)).size).toBe(jobs.evalCount);
      // Every training run of rounds 1..ROUNDS, and the round ensembles of rounds 3..ROUNDS (each finished
      // before the hanging round's second job could start).
      expect(
        rowsOf(loop.rows, 'run')
          .map((row) => row.run_id)
          .sort(),
      ).toEqual(
        [
          ...['a', 'b'].flatMap((name) => Array.from({ length: ROUNDS }, (_, i) => `champ-g001-r000${i + 1}-${name}`)),
          ...Array.from({ length: ROUNDS - 2 }, (_, i) => `ens-g001-r000${i + 3}-all`),
        ].sort(),
      );
      expect(
        rowsOf(loop.rows, 'run').every(
          (row) => row.status === (row.run_id.startsWith('ens-') ? 'ensemble' : 'trained'),
        ),
      ).toBe(true);
      // The exported ledger, the fold of its JSONL and the workflow's own view are one state.
      expect(stateOf(loop.state)).toEqual(stateOf(loop.result.view));
      // `status` says the same state, updated at the newest row's time (the export's `updated` is
      // its last line's, which the copy's order can put earlier).
      expect(stateOf(loop.status)).toEqual(stateOf(loop.state));
      expect(loop.status.updated).toBe(newestRowTime(loop.rows));
      expect(stateOf(loop.folded)).toEqual(stateOf(loop.result.view));
      expect(loop.result.view.test_evals).toBe(
        rowsOf(loop.rows, 'eval').filter((row) => row.role === 'test' && row.status === 'ok').length,
      );
    }
    expect(jobsOf(forced.rows)).toEqual(jobsOf(plain.rows));
    // The front is a set of rows no row dominates, whatever order the lanes reported in.
    const front = (view: typeof plain.result.view) =>
      view.pareto_set.map((member) => `${member.run_id}/${member.checkpoint_name}`).sort();
    expect(front(forced.result.view)).toEqual(front(plain.result.view));

    expect(plain.chain).toHaveLength(1);
    expect(forced.chain.length).toBeGreaterThanOrEqual(3);
    // Each run but the last handed over at the cap: at the end of the turn that passed 60 events.
    // A turn can plan a round (candidates read, both children started and seen started) and hand
    // a champion to packaging before that check: about 40 events with two lanes (seen: 101).
    for (const run of forced.histories.slice(0, -1)) expect(run.length).toBeLessThan(60 + 60);
    // Some runs began with children of an earlier run still in flight: continue-as-new did not drain.
    expect(forced.chain.filter((run) => (run.input.carry?.inFlight.length ?? 0) > 0).length).toBeGreaterThanOrEqual(1);

    // Children report by their completion to the run that started them: a loop that never
    // continued as new gets no report signal at all. A run that carried children in adopts each
    // of them, and only adopted children report by signal.
    expect(signalsOf(plain.histories).received.filter((name) => name === runReportedSignal.name)).toEqual([]);
    const carried = forced.chain.reduce((sum, run) => sum + (run.input.carry?.inFlight.length ?? 0), 0);
    const { received, sent } = signalsOf(forced.histories);
    expect(sent.filter((name) => name === adoptSignal.name)).toHaveLength(carried);
    expect(received.filter((name) => name === runReportedSignal.name).length).toBeLessThanOrEqual(carried);
  }, 300_000);
});
