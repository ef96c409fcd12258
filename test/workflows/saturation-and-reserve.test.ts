import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { advanceLoop } from '../../src/client/loop-updates.js';
import { NoSuchLoopError } from '../../src/client/no-such-loop.js';
import type { LedgerRow, ReserveCheckRow } from '../../src/ledger/rows.js';
import { reserveVerdict } from '../../src/rules/index.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { generation as generationWorkflow } from '../../src/workflows/generation.js';
import { advanceSignal, stopSignal } from '../../src/workflows/messages.js';
import { ORCHESTRATOR_QUEUE } from '../../src/workflows/queues.js';
import { championLoopCli, rowsOf, signalWithCli, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

/** Rows of generation 1 of one type. */
const firstGeneration = <T extends LedgerRow['type']>(rows: readonly LedgerRow[], type: T) =>
  rowsOf(rows, type).filter((row) => row.generation === 1);

/** The champion (run/checkpoint) as the ledger stands just before `row`. */
function championBefore(rows: readonly LedgerRow[], row: LedgerRow): string | null {
  let champion: string | null = null;
  for (const earlier of rows.slice(0, rows.indexOf(row))) {
    if (earlier.type === 'generation') champion = null;
    if (earlier.type === 'champion') champion = `${earlier.champion.run_id}/${earlier.champion.checkpoint_name}`;
  }
  return champion;
}

/** Ok test evals of generation 1 recorded before `row`. */
const testEvalsBefore = (rows: readonly LedgerRow[], row: LedgerRow) =>
  rows
    .slice(0, rows.indexOf(row))
    .filter((r) => r.type === 'eval' && r.generation === 1 && r.role === 'test' && r.status === 'ok').length;

const checkedOf = (row: ReserveCheckRow) => `${row.run_id}/${row.checkpoint_name}`;

describe('saturation, reserve checks and generation advance', () => {
  let harness: LoopHarness;
  const oneLane = () => ({ lanes: harness.config.lanes.slice(0, 1), parallel: 1 });

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'weak', overrides: { fixture_quality: 0.05 } },
        { name: 'strong', overrides: { fixture_quality: 0.95 } },
      ],
    });
  });

  afterEach(() => {
    delete process.env.FIXTURE_FAIL_EVALUATE;
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  /** Stop a loop gracefully and return its result and exported ledger, checked to fold to the same state. */
  async function stopAndExport(loopId: string) {
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const ledger = await harness.ledger(loopId);
    expect(stateOf(ledger.state)).toEqual(stateOf(result.view));
    return { result, rows: ledger.rows };
  }

  it('a champion that holds up on reserve passes, and max_reserve_checks passing checks open the next generation', async () => {
    await harness.startWith('pass', { ...oneLane(), saturation_evals: 3, max_reserve_checks: 2 });
    await harness.waitFor('pass', (view) => view.generation >= 2);
    const { rows } = await stopAndExport('pass');

    const checks = firstGeneration(rows, 'reserve_check');
    expect(checks).toHaveLength(2);
    for (const check of checks) {
      expect(check).toMatchObject({ status: 'ok', verdict: 'pass', stale_champion: false, compared: 'result' });
      // The verdict is the z-test of the champion's test counts against its reserve counts.
      expect(check.test).not.toBeNull();
      expect(check.reserve).not.toBeNull();
      if (check.test && check.reserve) expect(check).toMatchObject(reserveVerdict(check.test, check.reserve));
      expect(Math.min(check.f2p_p ?? 0, check.p2f_p ?? 0)).toBeGreaterThanOrEqual(0.01);
      // It checks the champion of that moment, after exactly the test evals it names: on one lane it goes before any new training.
      expect(checkedOf(check)).toBe(championBefore(rows, check));
      expect(testEvalsBefore(rows, check)).toBe(check.test_evals);
      const reserveEvals = rowsOf(rows, 'eval').filter(
        (row) => row.role === 'reserve' && `${row.run_id}/${row.checkpoint_name}` === checkedOf(check),
      );
      expect(reserveEvals).toHaveLength(1);
      expect(rows.indexOf(reserveEvals[0] as LedgerRow)).toBeLessThan(rows.indexOf(check));
    }
    expect(checks[0]?.test_evals).toBeGreaterThanOrEqual(3);
    expect((checks[1]?.test_evals ?? 0) - (checks[0]?.test_evals ?? 0)).toBeGreaterThanOrEqual(3);

    const opened = rowsOf(rows, 'generation')[1];
    expect(opened).toMatchObject({
      generation: 2,
      event: 'advance',
      reason: 'max_reserve_checks',
      split_seed: harness.config.base_seed + 2,
    });
    expect(rows.indexOf(opened as LedgerRow)).toBeGreaterThan(rows.indexOf(checks[1] as LedgerRow));
    expect(opened?.previous_champion).toEqual(firstGeneration(rows, 'champion').at(-1)?.champion);
    expect(opened?.previous_pareto_set).toEqual(firstGeneration(rows, 'pareto_set').at(-1)?.members);
  });

  it('a champion much worse on reserve fails the check, and the next generation opens as reserve_failed', async () => {
    process.env.FIXTURE_FAIL_EVALUATE = 'degraded:reserve';
    await harness.startWith('fail', { ...oneLane(), saturation_evals: 3, max_reserve_checks: 3 });
    await harness.waitFor('fail', (view) => view.generation >= 2);
    const { rows, result } = await stopAndExport('fail');

    // What `watch` prints every reserve check and each generation's reason from (issue 47): the
    // loop's count of reserve checks across generations, its newest, and why this generation opened.
    const all = rowsOf(rows, 'reserve_check');
    expect(result.view.reserve_checks_seen).toBe(all.length);
    expect(result.view.last_reserve_check).toMatchObject({
      generation: all.at(-1)?.generation,
      run_id: all.at(-1)?.run_id,
      checkpoint_name: all.at(-1)?.checkpoint_name,
      verdict: all.at(-1)?.verdict,
      alpha: 0.01,
    });
    expect(result.view.opened_by).toBe(rowsOf(rows, 'generation').at(-1)?.reason);

    const checks = firstGeneration(rows, 'reserve_check');
    expect(checks).toHaveLength(1);
    const [check] = checks;
    expect(check).toMatchObject({ status: 'ok', verdict: 'fail', stale_champion: false });
    expect(check?.reserve?.fail_to_pass_count).toBe(check?.reserve?.fail_count);
    expect(check?.f2p_p).toBeLessThan(0.01);
    expect(rowsOf(rows, 'generation')[1]).toMatchObject({ generation: 2, reason: 'reserve_failed' });
  });

  it('a reserve check that cannot run resets the counter but does not count as a check', async () => {
    process.env.FIXTURE_FAIL_EVALUATE = 'fail:reserve';
    await harness.startWith('no-run', { ...oneLane(), saturation_evals: 3, max_reserve_checks: 1 });
    await vi.waitFor(
      async () => {
        if (firstGeneration((await harness.ledger('no-run')).rows, 'reserve_check').length < 2) {
          throw new Error(`fewer than two reserve checks: ${JSON.stringify(stateOf(await harness.view('no-run')))}`);
        }
      },
      { timeout: 60_000, interval: 250 },
    );
    const { result, rows } = await stopAndExport('no-run');

    const checks = firstGeneration(rows, 'reserve_check');
    expect(checks.length).toBeGreaterThanOrEqual(2);
    for (const check of checks)
      expect(check).toMatchObject({ status: 'failed', verdict: 'error', reserve: null, stale_champion: false });
    // The counter restarts at each check that could not run: the next one waits for another saturation_evals.
    for (let i = 1; i < checks.length; i += 1) {
      expect((checks[i]?.test_evals ?? 0) - (checks[i - 1]?.test_evals ?? 0)).toBeGreaterThanOrEqual(3);
    }
    // With max_reserve_checks 1 a counted check would have opened generation 2.
    expect(result.view).toMatchObject({ generation: 1, reserve_checks: 0, advance_reason: null });
    expect(result.view.tests_since_reserve_check).toBe(result.view.test_evals - (checks.at(-1)?.test_evals ?? 0));
    expect(rowsOf(rows, 'generation')).toHaveLength(1);
    expect(
      rowsOf(rows, 'eval')
        .filter((row) => row.role === 'reserve')
        .every((row) => row.status === 'failed'),
    ).toBe(true);
  });

  it('a reserve check whose champion was replaced while it ran is recorded as stale and changes nothing', async () => {
    // The weak run reports first and its champion goes to a slow reserve check; the strong run,
    // slowed down so it finishes while that check runs, takes the championship meanwhile.
    const candidates = path.join(harness.dir, 'stale.candidates.yaml');
    await harness.writeCandidates(
      [
        { name: 'weak', overrides: { fixture_quality: 0.05, fixture_epochs: 2 } },
        { name: 'strong', overrides: { fixture_quality: 0.95, fixture_epochs: 2, fixture_sleep_ms: 1000 } },
      ],
      candidates,
    );
    process.env.FIXTURE_FAIL_EVALUATE = 'slow:reserve';
    await harness.startWith('stale', { candidates, saturation_evals: 1, max_reserve_checks: 1 });
    await harness.waitFor('stale', (view) => view.generation >= 2, 90_000);
    const { rows } = await stopAndExport('stale');

    const checks = firstGeneration(rows, 'reserve_check');
    const stale = checks.filter((check) => check.stale_champion === true);
    const counted = checks.filter((check) => check.stale_champion !== true);
    expect(stale.length, JSON.stringify(checks.map((c) => [checkedOf(c), c.stale_champion]))).toBeGreaterThanOrEqual(1);
    expect(stale[0]?.candidate).toBe('weak');
    for (const check of stale) {
      expect(check.status).toBe('ok');
      // The champion it checked had been replaced by the time its row was recorded.
      expect(championBefore(rows, check)).not.toBe(checkedOf(check));
      expect(
        rowsOf(rows, 'champion').some(
          (row) =>
            row.previous !== null &&
            `${row.previous.run_id}/${row.previous.checkpoint_name}` === checkedOf(check) &&
            rows.indexOf(row) < rows.indexOf(check),
        ),
      ).toBe(true);
    }
    // Stale checks neither reset the counter nor count: the one check that counts comes last,
    // on the champion of its moment, and opens generation 2 by itself (max_reserve_checks 1).
    expect(counted).toHaveLength(1);
    const [last] = counted;
    expect(checks.at(-1)).toBe(last);
    expect(last?.candidate).toBe('strong');
    expect(checkedOf(last as ReserveCheckRow)).toBe(championBefore(rows, last as ReserveCheckRow));
    expect(rowsOf(rows, 'generation')[1]).toMatchObject({
      generation: 2,
      reason: last?.verdict === 'fail' ? 'reserve_failed' : 'max_reserve_checks',
    });
  });

  it('a user advances the generation from the client and from the temporal CLI, with reasons and the previous champion recorded', async () => {
    await harness.startWith('advance', { ...oneLane(), saturation_evals: 1000 });
    await harness.waitFor('advance', (view) => view.champion !== null);
    const before = await advanceLoop(harness.client, { loopId: 'advance', reason: 'corpus relabelled' });
    expect(before.generation).toBe(1);
    await harness.waitFor('advance', (view) => view.generation === 2 && view.champion !== null);
    await signalWithCli(harness.server, 'advance', advanceSignal.name, '"labels changed"');
    await harness.waitFor('advance', (view) => view.generation === 3 && view.test_evals > 0);
    const { rows } = await stopAndExport('advance');

    const generations = rowsOf(rows, 'generation');
    expect(generations.map((row) => [row.generation, row.event, row.reason, row.split_seed])).toEqual([
      [1, 'start', 'initial', harness.config.base_seed + 1],
      [2, 'advance', 'corpus relabelled', harness.config.base_seed + 2],
      [3, 'advance', 'labels changed', harness.config.base_seed + 3],
    ]);
    for (const opened of generations.slice(1)) {
      const previous = rows.slice(0, rows.indexOf(opened)).filter((row) => row.generation === opened.generation - 1);
      expect(opened.previous_champion).not.toBeNull();
      expect(opened.previous_champion).toEqual(rowsOf(previous, 'champion').at(-1)?.champion);
      expect(opened.previous_pareto_set).toEqual(rowsOf(previous, 'pareto_set').at(-1)?.members);
    }
    // Runs of every generation were trained, round numbers starting again at 1 in each.
    expect(new Set(rowsOf(rows, 'run').map((row) => row.generation))).toEqual(new Set([1, 2, 3]));
    for (const generation of [2, 3])
      expect(rowsOf(rows, 'run').find((row) => row.generation === generation)?.round).toBe(1);
  });

  it('an advance signalled before the loop took its first step opens generation 2 at once, in the live state and the ledger alike', async () => {
    // As when an operator signals a loop that no orchestrator worker has picked up yet.
    await harness.client.workflow.signalWithStart(generationWorkflow, {
      workflowId: loopWorkflowId('early'),
      taskQueue: ORCHESTRATOR_QUEUE,
      args: [{ loopId: 'early', config: harness.configFor('early', oneLane()) }],
      signal: advanceSignal,
      signalArgs: ['signalled early'],
    });
    await harness.waitFor('early', (view) => view.generation === 2 && view.test_evals > 0);
    const { rows } = await stopAndExport('early');
    expect(rowsOf(rows, 'generation').map((row) => [row.generation, row.reason])).toEqual([
      [1, 'initial'],
      [2, 'signalled early'],
    ]);
    expect(rowsOf(rows, 'run').every((row) => row.generation === 2)).toBe(true);
  });

  it('advancing a loop that does not exist, or has no generation yet, is refused with a clear error', async () => {
    const missing = await advanceLoop(harness.client, { loopId: 'ghost', reason: 'why' }).catch(
      (error: unknown) => error,
    );
    expect(missing).toBeInstanceOf(NoSuchLoopError);
    expect((missing as Error).message).toMatch(/no loop 'ghost' here/);
    const cli = await championLoopCli(harness.server, ['advance', 'ghost', '--reason', 'why']);
    expect(cli.exitCode).toBe(1);
    expect(cli.stderr).toMatch(/no loop 'ghost' here/);

    // A loop started while no orchestrator worker runs it has not opened generation 1 yet.
    const handle = await harness.client.workflow.start(generationWorkflow, {
      workflowId: loopWorkflowId('unopened'),
      taskQueue: 'no-worker-polls-this',
      args: [{ loopId: 'unopened', config: harness.configFor('unopened') }],
    });
    // The advance is an update no worker answers: after its deadline the client says why.
    const started = Date.now();
    await expect(advanceLoop(harness.client, { loopId: 'unopened', reason: 'why', deadlineMs: 3_000 })).rejects.toThrow(
      /'unopened' has no generation to advance from yet/,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    await handle.terminate('test over');
  });
});
