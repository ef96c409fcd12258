import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { carryFromLedger } from '../../src/client/carry-from-ledger.js';
import { foldRows } from '../../src/ledger/from-ledger.js';
import { foldSettingsOf, stateJson } from '../../src/ledger/loop-state.js';
import { dominates, evalSummary, type Counts, type EvalRow, type PairedJudgement } from '../../src/rules/index.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp } from '../helpers/bounded-loop.js';
import { rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// loop.yaml `champion_rule: ladder` on the fixture stack, against the default rule on the same
// candidates: the Ladder refuses a promotion dominance makes, says why on the eval row, and the
// workflow's state and the ledger exported from history agree.
describe('champion_rule on one lane', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'weak', overrides: { fixture_quality: 0.05 } },
        { name: 'strong', overrides: { fixture_quality: 0.95 } },
      ],
      lanes: 1,
      loop: { saturation_evals: 1000 },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  const runToRound2 = async (loopId: string, settings: Parameters<LoopHarness['startWith']>[1]) => {
    await harness.startWith(loopId, settings);
    await harness.waitFor(loopId, (view) => view.round >= 2);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    return { result, ...(await harness.ledger(loopId)) };
  };

  it('ladder refuses the promotion dominance makes, and the rows say why', async () => {
    const dominance = await runToRound2('dominance', {});
    // A margin no checkpoint can make: after the first, nothing is promoted.
    const ladder = await runToRound2('ladder', { champion_rule: 'ladder', ladder_margin: 10_000 });

    const championsOf = (rows: typeof dominance.rows) => rowsOf(rows, 'champion').filter((row) => row.generation === 1);
    expect(championsOf(dominance.rows).length).toBeGreaterThanOrEqual(2);
    const ladderChampions = championsOf(ladder.rows);
    expect(ladderChampions).toHaveLength(1);
    expect(ladderChampions[0]?.ladder?.margin).toBe(10_000);
    // What the ledger records of the champion's counts is rounded to the step: 0 at this margin.
    expect(ladderChampions[0]?.ladder?.recorded).toEqual({ fail_to_pass_count: 0, pass_to_fail_count: 0 });
    expect(
      dominance.rows.some(
        (row) => 'ladder' in row || 'paired' in row || 'champion_rule' in row || 'item_errors' in row,
      ),
    ).toBe(false);

    const tests = rowsOf(ladder.rows, 'eval').filter(
      (row) => row.generation === 1 && row.role === 'test' && row.status === 'ok',
    );
    for (const row of tests) expect(row.champion_rule?.rule).toBe('ladder');
    // Some eval dominates the champion's counts (dominance would promote it) and the Ladder refused it.
    const first = tests[0] as EvalRow;
    const refused = tests.filter(
      (row) => row.champion_rule?.promote === false && dominates(row.result as Counts, first.result as Counts),
    );
    expect(refused.length).toBeGreaterThan(0);

    // The workflow decided what the exporter folds from history.
    expect(ladder.result.view.champion).toEqual(evalSummary(first));
    expect(stateOf(ladder.state)).toEqual(stateOf(ladder.result.view));
  });

  it('paired refuses a promotion dominance makes; rows carry the statistics, history and the copy fold to its state', async () => {
    // An alpha this small needs 41 discordant items one way, more than the fixture's few dozen
    // test items: every challenger whose counts dominate is refused as noise.
    const loopId = 'paired';
    const settings = { champion_rule: 'paired' as const, alpha: 1e-12 };
    const paired = await runToRound2(loopId, settings);

    const tests = rowsOf(paired.rows, 'eval').filter(
      (row) => row.generation === 1 && row.role === 'test' && row.status === 'ok',
    );
    const judgementOf = (row: EvalRow) => row.champion_rule as PairedJudgement;
    for (const row of tests) {
      expect(judgementOf(row)).toMatchObject({ rule: 'paired', alpha: 1e-12 });
      // Every ok test eval read its scores file: 1 bit per test item.
      expect(row.item_errors?.fail_count).toBe(row.result?.fail_count);
      expect(row.item_errors?.pass_count).toBe(row.result?.pass_count);
    }
    // All scored the same test items, so every eval after the first was paired item by item.
    expect(new Set(tests.map((row) => row.item_errors?.items)).size).toBe(1);
    expect(tests.slice(1).every((row) => judgementOf(row).paired === 'ok')).toBe(true);
    // An eval whose counts dominate the champion's (dominance would have promoted it) was refused.
    const refused = tests.filter((row) => judgementOf(row).dominates && !judgementOf(row).promote);
    expect(refused.length).toBeGreaterThan(0);
    const stats = judgementOf(refused[0] as EvalRow);
    expect(stats.paired === 'ok' && stats.f2p.p_better > 1e-12 / 2).toBe(true);

    // Every champion row says what promoted it.
    for (const row of rowsOf(paired.rows, 'champion')) expect(row.paired?.promote).toBe(true);

    // The workflow decided what the exporter folds from history and what the ledger copy folds to.
    expect(stateOf(paired.state)).toEqual(stateOf(paired.result.view));
    const config = harness.configFor(loopId, settings);
    const copy = await copyCaughtUp(harness, loopId, config.state_dir);
    const folded = foldRows(copy, foldSettingsOf(config));
    expect(stateOf(stateJson(folded, config.state_dir, ''))).toEqual(stateOf(paired.result.view));
    // A resume from the copy keeps the champion's per-item record, so it goes on pairing against it.
    const championRow = tests.find(
      (row) =>
        row.run_id === paired.result.view.champion?.run_id &&
        row.checkpoint_name === paired.result.view.champion?.checkpoint_name,
    );
    expect(championRow?.item_errors).toBeDefined();
    // The carry a continue-as-new (or a start after this stop) takes keeps it too.
    expect(paired.result.resume.state.champion?.item_errors).toEqual(championRow?.item_errors);
    expect(carryFromLedger(copy, config, new Date().toISOString())?.state.champion?.item_errors).toEqual(
      championRow?.item_errors,
    );
  });
});
