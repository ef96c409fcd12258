import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dominates, evalSummary, type Counts, type EvalRow } from '../../src/rules/index.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
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
    expect(dominance.rows.some((row) => 'ladder' in row || 'champion_rule' in row)).toBe(false);

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
});
