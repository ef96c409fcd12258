import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stateFromLedger } from '../../src/ledger/from-ledger.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

describe('a loop with three candidates on two lanes', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [
        { name: 'base' },
        { name: 'wide', overrides: { fixture_quality: 0.7 } },
        { name: 'narrow', overrides: { fixture_quality: 0.3 } },
      ],
      loop: { saturation_evals: 8, max_reserve_checks: 1 },
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it('runs generations end to end and its exported ledger folds to the state the query returns', async () => {
    await harness.start('e2e');
    await harness.waitFor('e2e', (view) => view.generation >= 3, 120_000);
    await harness.client.workflow.getHandle('champion-loop/e2e').signal(stopSignal);
    const result = await harness.result('e2e');
    const { rows, state } = await harness.ledger('e2e');

    const types = new Set(rows.map((row) => row.type));
    expect([...types].sort()).toEqual([
      'champion',
      'eval',
      'generation',
      'package',
      'pareto_set',
      'reserve_check',
      'run',
    ]);
    const generations = rows.filter(
      (row): row is Extract<LedgerRow, { type: 'generation' }> => row.type === 'generation',
    );
    expect(generations.map((row) => [row.generation, row.reason])).toEqual(
      [
        [1, 'initial'],
        [2, 'max_reserve_checks'],
        [3, 'max_reserve_checks'],
      ].slice(0, generations.length),
    );
    expect(stateOf(state)).toEqual(stateOf(result.view));

    const jsonl = rows.map((row) => JSON.stringify(row)).join('\n');
    const folded = stateFromLedger(
      jsonl,
      'ledger.jsonl',
      { mode: 'default', saturationEvals: 8, maxReserveChecks: 1 },
      harness.config.state_dir,
    );
    expect(stateOf(folded)).toEqual(stateOf(state));

    const runIds = rows.filter((row) => row.type === 'run').map((row) => (row as { run_id: string }).run_id);
    expect(new Set(runIds).size).toBe(runIds.length);
    const evalKeys = rows
      .filter((row) => row.type === 'eval')
      .map(
        (row) =>
          `${(row as { run_id: string }).run_id}/${(row as { checkpoint_name: string }).checkpoint_name}/${(row as { role: string }).role}`,
      );
    expect(new Set(evalKeys).size).toBe(evalKeys.length);
  });
});
