import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LedgerRow } from '../../src/ledger/rows.js';
import {
  applyTestEval,
  compareKeyFor,
  evalSummary,
  openChampionState,
  paretoFront,
  type ChampionMode,
  type EvalRow,
  type EvalSummary,
} from '../../src/rules/index.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stateQuery, stopSignal } from '../../src/workflows/messages.js';
import { rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

/** What the pure rules make of a generation's eval rows, taken in ledger order. */
function byTheRules(evals: readonly EvalRow[], generation: number, mode: ChampionMode) {
  let state = openChampionState<EvalRow>(generation);
  const champions: { previous: EvalSummary | null; champion: EvalSummary | null; finished: string }[] = [];
  const fronts: { members: (EvalSummary | null)[]; finished: string }[] = [];
  for (const row of evals) {
    const next = applyTestEval(state, row, mode);
    if (next.champion !== state.champion)
      champions.push({
        previous: evalSummary(state.champion),
        champion: evalSummary(next.champion),
        finished: row.finished,
      });
    const keys = (front: readonly EvalRow[]) =>
      front.map((member) => `${member.run_id}/${member.checkpoint_name}`).join(' ');
    if (keys(next.front) !== keys(state.front))
      fronts.push({ members: next.front.map(evalSummary), finished: row.finished });
    state = next;
  }
  return { state, champions, fronts };
}

type Counts = { fail_to_pass_count: number; pass_to_fail_count: number };
/** Dominance written out again here, so a wrong rule in src/rules cannot pass its own test. */
const beats = (a: Counts, b: Counts) =>
  a.fail_to_pass_count <= b.fail_to_pass_count &&
  a.pass_to_fail_count <= b.pass_to_fail_count &&
  (a.fail_to_pass_count < b.fail_to_pass_count || a.pass_to_fail_count < b.pass_to_fail_count);

/** The front, checked from first principles: no competing row beats a member, every other row is beaten by one. */
function expectFrontOfItsRows(
  front: readonly EvalRow[],
  competing: readonly EvalRow[],
  counts: (row: EvalRow) => Counts,
) {
  const members = new Set(front.map((row) => `${row.run_id}/${row.checkpoint_name}`));
  for (const row of competing) {
    const beaten = competing.some((other) => beats(counts(other), counts(row)));
    expect(
      members.has(`${row.run_id}/${row.checkpoint_name}`),
      `${row.run_id} ${row.checkpoint_name} ${JSON.stringify(counts(row))}`,
    ).toBe(!beaten);
  }
}

/** The ledger's champion and Pareto rows are exactly what the rules compute; returns the rules' final state. */
function expectLedgerFollowsTheRules(rows: readonly LedgerRow[], mode: ChampionMode) {
  const evals = rowsOf(rows, 'eval').filter((row) => row.generation === 1);
  const expected = byTheRules(evals, 1, mode);
  const champions = rowsOf(rows, 'champion').filter((row) => row.generation === 1);
  const fronts = rowsOf(rows, 'pareto_set').filter((row) => row.generation === 1);
  expect(champions.map(({ previous, champion, finished }) => ({ previous, champion, finished }))).toEqual(
    expected.champions,
  );
  expect(fronts.map(({ members, finished }) => ({ members, finished }))).toEqual(expected.fronts);
  // The incremental front the loop keeps is the batch front of every competing row, in ledger order.
  const competing = evals.filter(
    (row) => row.role === 'test' && row.status === 'ok' && row[compareKeyFor(mode)] !== null,
  );
  expect(expected.state.front).toEqual(paretoFront(competing, compareKeyFor(mode)));
  expect(expected.state.testEvals).toBe(competing.length);
  const counts = (row: EvalRow) => row[compareKeyFor(mode)] as Counts;
  expectFrontOfItsRows(expected.state.front, competing, counts);
  if (mode === 'default') {
    // Each new champion beats the one before it; no competing row beats the last one.
    for (const row of champions.slice(1))
      expect(beats(row.champion.result as Counts, row.previous?.result as Counts)).toBe(true);
    const last = competing.find(
      (row) =>
        row.run_id === champions.at(-1)?.champion.run_id &&
        row.checkpoint_name === champions.at(-1)?.champion.checkpoint_name,
    );
    expect(last).toBeDefined();
    expect(competing.some((row) => last && beats(counts(row), counts(last)))).toBe(false);
  } else {
    // The champion is the front member with the fewest (Fail->Pass, Pass->Fail, rejected), earliest on a tie.
    const order = (row: EvalRow) => [
      counts(row).fail_to_pass_count,
      counts(row).pass_to_fail_count,
      row.decided?.rejected_total ?? 0,
    ];
    const best = [...expected.state.front].sort((a, b) => {
      const [x, y] = [order(a), order(b)];
      for (let i = 0; i < 3; i += 1) if (x[i] !== y[i]) return (x[i] ?? 0) - (y[i] ?? 0);
      return a.finished < b.finished ? -1 : a.finished > b.finished ? 1 : 0;
    })[0];
    expect(expected.state.champion).toEqual(best);
  }
  return expected.state;
}

describe('champion and Pareto front on one lane', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    // One lane runs the candidates in file order, so the ledger's order is known: weak, then strong, per round.
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

  it('the champion and Pareto rows are what the rules make of the eval rows, and the state query agrees', async () => {
    await harness.startWith('default');
    await harness.waitFor('default', (view) => view.round >= 3);
    await harness.client.workflow.getHandle(loopWorkflowId('default')).signal(stopSignal);
    const result = await harness.result('default');
    const { rows, state } = await harness.ledger('default');

    const ruled = expectLedgerFollowsTheRules(rows, 'default');
    const champions = rowsOf(rows, 'champion');
    // The first test eval is champion; the strong candidate's first run dominates it and takes over.
    expect(champions[0]?.previous).toBeNull();
    expect(champions[0]?.champion.candidate).toBe('weak');
    expect(champions[0]?.champion.run_id).toBe('champ-g001-r0001-weak');
    expect(champions[1]?.previous?.candidate).toBe('weak');
    expect(champions[1]?.champion.run_id).toBe('champ-g001-r0001-strong');
    expect(ruled.front.every((row) => row.candidate === 'strong')).toBe(true);

    expect(result.view.champion).toEqual(evalSummary(ruled.champion));
    expect(result.view.pareto_set).toEqual(ruled.front.map(evalSummary));
    expect(stateOf(state)).toEqual(stateOf(result.view));
    // The query answers from the closed workflow's history too, with the same champion and front.
    const queried = await harness.client.workflow.getHandle(loopWorkflowId('default')).query(stateQuery);
    expect(stateOf(queried)).toEqual(stateOf(result.view));
  });

  it('in band-decision mode the champion is the front member with the fewest decided errors, as the rules say', async () => {
    await harness.startWith('band', { band_decisions: true });
    await harness.waitFor('band', (view) => view.round >= 3);
    await harness.client.workflow.getHandle(loopWorkflowId('band')).signal(stopSignal);
    const result = await harness.result('band');
    const { rows, state } = await harness.ledger('band');

    const ruled = expectLedgerFollowsTheRules(rows, 'band-decisions');
    expect(rowsOf(rows, 'eval').every((row) => row.status !== 'ok' || row.decided !== null)).toBe(true);
    expect(ruled.champion).not.toBeNull();
    expect(ruled.front).toContainEqual(ruled.champion);
    expect(result.view.champion).toEqual(evalSummary(ruled.champion));
    expect(result.view.pareto_set).toEqual(ruled.front.map(evalSummary));
    expect(stateOf(state)).toEqual(stateOf(result.view));
  });
});
