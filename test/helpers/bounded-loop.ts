// A loop that ends on its own after a known number of rounds, so that a disturbed run of it can be
// compared row for row with an undisturbed one: the training of the round after the last hangs on
// as many lanes as the loop runs jobs at once (`parallel`), nothing else can run, and the loop is
// then stopped at once.
import { expect, vi } from 'vitest';
import { historyLedger } from '../../src/client/ledger-export.js';
import { stateFromLedger } from '../../src/ledger/from-ledger.js';
import { readLedgerCopy } from '../../src/ledger-copy/copy-files.js';
import { missingRows } from '../../src/ledger/ledger-lines.js';
import { foldSettingsOf, type StateJson } from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { runIdFor } from '../../src/rules/ids.js';
import type { GenerationResult } from '../../src/workflows/generation.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopNowSignal } from '../../src/workflows/messages.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import type { CandidateSpec } from './loop-harness.js';
import { evalKey, expectEachRunAndEvalOnce, rowsOf, stateOf } from './loop-checks.js';
import type { LoopDriver, ProcessLoopOptions } from './process-loop.js';

/** Two candidates: every round two training runs, from round 3 a round ensemble too; `parallel` must be 2. */
export const BOUNDED_CANDIDATES: readonly CandidateSpec[] = [
  { name: 'a', overrides: { fixture_quality: 0.3 } },
  { name: 'b', overrides: { fixture_quality: 0.7 } },
];

/** FIXTURE_FAIL_TRAIN entries that make every candidate's training of round `rounds + 1` hang. */
export function hangAfterRound(rounds: number, candidates: readonly CandidateSpec[] = BOUNDED_CANDIDATES): string[] {
  return candidates.map((candidate) => `hang:${runIdFor(1, rounds + 1, candidate.name)}`);
}

/** One bounded loop, stopped: its result, exported ledger, and the fold of that ledger's JSONL. */
/**
 * The bounded loop as the lane fault tests run it: 3 lanes (the jobs of the round after the last
 * hang on two, and a job moved off a lost lane needs a third), short limits so that a lost lane
 * is noticed in seconds (its heartbeat stops, the retry is not picked up within
 * schedule_to_start, the lane is marked down and the job goes elsewhere), and `target` slow (1 s
 * per epoch) so that a fault catches it in the middle of a step.
 */
export function laneFaultLoop(rounds: number, target: string): ProcessLoopOptions {
  return {
    candidates: BOUNDED_CANDIDATES,
    lanes: 3,
    loop: { parallel: 2, saturation_evals: 1000, timeouts: { heartbeat: '5s', schedule_to_start: '5s' } },
    laneEnv: { FIXTURE_FAIL_TRAIN: [...hangAfterRound(rounds), `slow:${target}`].join(',') },
  };
}

export interface BoundedLoop {
  readonly loopId: string;
  readonly result: GenerationResult;
  readonly rows: LedgerRow[];
  readonly state: StateJson;
  readonly folded: StateJson;
  /** The ledger copy in the state dir, once it caught up with history. */
  readonly copy: LedgerRow[];
}

export interface BoundedOptions {
  readonly rounds: number;
  readonly settings?: Partial<LoopConfig>;
  /** Runs while the loop runs (the fault); the loop is stopped only after it has finished. */
  readonly during?: () => Promise<void>;
  readonly timeoutMs?: number;
}

/** Start a loop, let it run its rounds (and `during` do its worst), stop it at once, and read its ledger. */
export async function runBounded(driver: LoopDriver, loopId: string, options: BoundedOptions): Promise<BoundedLoop> {
  const started = await driver.startWith(loopId, options.settings);
  expect(started.kind).toBe('started');
  const last = options.rounds + 1;
  const { parallel } = driver.configFor(loopId, options.settings);
  await Promise.all([
    options.during?.(),
    driver.waitFor(
      loopId,
      (view) =>
        view.round === last &&
        view.in_flight.length === parallel &&
        view.in_flight.every((flight) => flight.jobId.includes(`-r${String(last).padStart(4, '0')}-`)),
      options.timeoutMs ?? 180_000,
    ),
  ]);
  await driver.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopNowSignal);
  const result = await driver.result(loopId);
  const config = driver.configFor(loopId, options.settings);
  const copy = await copyCaughtUp(driver, loopId, config.state_dir);
  const { rows, state } = await driver.ledger(loopId);
  const jsonl = rows.map((row) => JSON.stringify(row)).join('\n');
  const folded = stateFromLedger(jsonl, 'ledger.jsonl', foldSettingsOf(config), config.state_dir);
  return { loopId, result, rows, state, folded, copy };
}

/**
 * The ledger copy holds what the export holds: every row of the copy is in the export, and the
 * export has nothing more but package rows that packaging (still running after its loop
 * stopped) recorded since the copy was read.
 */
export function expectCopyMatches(copy: readonly LedgerRow[], exported: readonly LedgerRow[], loopId: string): void {
  expect(
    missingRows(exported, copy).map((row) => JSON.stringify(row)),
    `${loopId}: rows in the copy but not in the export`,
  ).toEqual([]);
  expect(
    missingRows(copy, exported)
      .filter((row) => row.type !== 'package')
      .map((row) => JSON.stringify(row)),
    `${loopId}: rows in the export but not in the copy`,
  ).toEqual([]);
}

/** A ledger's rows as sorted lines: the same rows, each as often, whatever the order they were appended in. */
export function sortedLines(rows: readonly LedgerRow[]): string[] {
  return rows.map((row) => JSON.stringify(row)).sort();
}

/**
 * The ledger copy in the loop's state dir once it holds what history holds (the orchestrator's
 * keeper appends seconds behind): the same rows, each once, as the export from history alone.
 */
export async function copyCaughtUp(
  driver: Pick<LoopDriver, 'client'>,
  loopId: string,
  stateDir: string,
): Promise<LedgerRow[]> {
  const brief = (row: LedgerRow) => JSON.stringify(row).slice(0, 160);
  // vi.waitFor, not expect.poll: the fault tests run their baseline loop in beforeAll.
  return vi.waitFor(
    async () => {
      // History is read again each time: packaging may still be recording its last champion.
      const fromHistory = (await historyLedger(driver.client, loopId)).rows;
      const copy = await readLedgerCopy(stateDir);
      expect(
        {
          onlyInHistory: missingRows(copy, fromHistory).map(brief),
          onlyInCopy: missingRows(fromHistory, copy).map(brief),
        },
        `the ledger copy of ${loopId} equals the export from history`,
      ).toEqual({ onlyInHistory: [], onlyInCopy: [] });
      return copy;
    },
    { timeout: 30_000, interval: 250 },
  );
}

/** Once the copy holds every row history holds (a copy may hold more: rows of runs whose history is gone). */
export async function copyHoldsHistory(
  driver: Pick<LoopDriver, 'client'>,
  loopId: string,
  stateDir: string,
): Promise<void> {
  await vi.waitFor(
    async () => {
      const missing = missingRows(await readLedgerCopy(stateDir), (await historyLedger(driver.client, loopId)).rows);
      expect(
        missing.map((row) => JSON.stringify(row)),
        `the ledger copy of ${loopId} holds every row of history`,
      ).toEqual([]);
    },
    { timeout: 30_000, interval: 250 },
  );
}

/** What must not differ between two runs of one loop: each run and eval once, with the same outcome (times and paths aside). */
export function jobsOf(rows: readonly LedgerRow[]) {
  const runs = rowsOf(rows, 'run').map(
    (row) => `${row.run_id} ${row.status} ${row.seed} ${row.epochs_run} ${row.checkpoints.join(',')}`,
  );
  // An ensemble's sha256 is its manifest's, which names the loop's own (temporary) paths.
  const evals = rowsOf(rows, 'eval').map(
    (row) =>
      `${evalKey(row)} ${row.status} ${JSON.stringify(row.result)} ${row.manifest ? 'manifest' : row.checkpoint_sha256}`,
  );
  return { runs: [...runs].sort(), evals: [...evals].sort() };
}

/** Each run and eval row exactly once, and the ledger, its fold and the workflow's own view one state. */
export function expectConsistent(loop: BoundedLoop): void {
  expectEachRunAndEvalOnce(loop.rows, loop.loopId);
  expect(stateOf(loop.state)).toEqual(stateOf(loop.result.view));
  expect(stateOf(loop.folded)).toEqual(stateOf(loop.result.view));
  expect(loop.result.view.test_evals).toBe(
    rowsOf(loop.rows, 'eval').filter((row) => row.role === 'test' && row.status === 'ok').length,
  );
  expectCopyMatches(loop.copy, loop.rows, loop.loopId);
}

/**
 * The disturbed loop holds the same run and eval rows as the undisturbed one (none missing, none
 * extra, each once, same outcomes) and the same Pareto front; both are consistent. Returns the
 * number of rows compared.
 */
export function expectSameLedger(disturbed: BoundedLoop, baseline: BoundedLoop): number {
  expectConsistent(baseline);
  expectConsistent(disturbed);
  const expected = jobsOf(baseline.rows);
  expect(jobsOf(disturbed.rows)).toEqual(expected);
  // The champion may differ (the first ok eval wins ties, and lanes report in any order); the front may not.
  const front = (loop: BoundedLoop) =>
    loop.result.view.pareto_set.map((member) => `${member.run_id}/${member.checkpoint_name}`).sort();
  expect(front(disturbed)).toEqual(front(baseline));
  return expected.runs.length + expected.evals.length;
}
