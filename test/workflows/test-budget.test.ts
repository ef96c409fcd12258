import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { foldRows } from '../../src/ledger/from-ledger.js';
import { foldSettingsOf, stateJson, TEST_BUDGET_SPENT_REASON } from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { evalSummary, type EvalRow } from '../../src/rules/index.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp } from '../helpers/bounded-loop.js';
import { expectEachRunAndEvalOnce, rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// loop.yaml `test_budget` on the fixture stack (docs/behaviour.md, "Test-set budget"): once a
// generation has read its test set `reads` times, `freeze` keeps its champion to the next
// generation and `advance` opens one with reason test_budget_spent. The workflow, the ledger
// exported from history and the ledger copy fold to the same state.
const READS = 3;

describe('test_budget on one lane', () => {
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

  /** Generation 1's competing reads in the order the loop folded them (ok test evals recorded before any advance). */
  const readsOf = (rows: readonly LedgerRow[]): EvalRow[] => {
    const advance = rows.findIndex((row) => row.type === 'generation' && row.generation === 2);
    return rowsOf(advance < 0 ? rows : rows.slice(0, advance), 'eval').filter(
      (row) => row.generation === 1 && row.role === 'test' && row.status === 'ok',
    );
  };

  it('freeze: reads past the budget are recorded as spent and the champion stays to the end of the generation', async () => {
    const loopId = 'frozen';
    const settings = { test_budget: { reads: READS, when_spent: 'freeze' as const } };
    await harness.startWith(loopId, settings);
    const frozen = await harness.waitFor(loopId, (view) => view.test_evals >= READS + 2);
    expect(frozen.test_budget).toEqual({ reads: READS, when_spent: 'freeze', left: 0 });
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const { rows, state } = await harness.ledger(loopId);

    const reads = readsOf(rows);
    expect(reads.length).toBeGreaterThanOrEqual(READS + 2);
    expect(reads.map((row) => row.test_budget ?? 'judged')).toEqual([
      ...Array<string>(READS).fill('judged'),
      ...Array<string>(reads.length - READS).fill('spent'),
    ]);
    // No champion after the read that spent the budget: it is the last one the budget allowed.
    const spentAt = (reads[READS - 1] as EvalRow).finished;
    const champions = rowsOf(rows, 'champion').filter((row) => row.generation === 1);
    expect(champions.length).toBeGreaterThan(0);
    expect(champions.every((row) => row.finished <= spentAt)).toBe(true);
    expect(result.view.champion).toEqual(champions.at(-1)?.champion);
    expect(result.view.generation).toBe(1);
    expect(result.view.advance_reason).toBeNull();
    expect(result.view.test_evals).toBe(reads.length);
    expectEachRunAndEvalOnce(rows, loopId);

    // The workflow decided what the exporter folds from history and what the ledger copy folds to.
    expect(stateOf(state)).toEqual(stateOf(result.view));
    const config = harness.configFor(loopId, settings);
    const copy = await copyCaughtUp(harness, loopId, config.state_dir);
    expect(stateOf(stateJson(foldRows(copy, foldSettingsOf(config)), config.state_dir, ''))).toEqual(
      stateOf(result.view),
    );
  });

  it('advance: the read that spends the budget opens the next generation, reason test_budget_spent', async () => {
    const loopId = 'advanced';
    const settings = { test_budget: { reads: READS, when_spent: 'advance' as const } };
    await harness.startWith(loopId, settings);
    const next = await harness.waitFor(loopId, (view) => view.generation >= 2);
    // A fresh generation, a fresh budget.
    expect(next.test_budget?.reads).toBe(READS);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const { rows, state } = await harness.ledger(loopId);

    const opening = rowsOf(rows, 'generation').find((row) => row.generation === 2);
    expect(opening?.reason).toBe(TEST_BUDGET_SPENT_REASON);
    const reads = readsOf(rows);
    const judged = reads.filter((row) => row.test_budget === undefined);
    expect(judged).toHaveLength(READS);
    // Reads folded between the spending read and the advance were judged by nothing.
    expect(reads.slice(READS).every((row) => row.test_budget === 'spent')).toBe(true);
    const lastChampion = rowsOf(rows, 'champion')
      .filter((row) => row.generation === 1)
      .at(-1);
    expect(opening?.previous_champion).toEqual(lastChampion?.champion);
    expect(judged.some((row) => evalSummary(row)?.run_id === lastChampion?.champion.run_id)).toBe(true);
    expectEachRunAndEvalOnce(rows, loopId);
    expect(stateOf(state)).toEqual(stateOf(result.view));
  });
});
