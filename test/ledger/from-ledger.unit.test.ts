import { describe, expect, it } from 'vitest';
import { LedgerLineError, stateFromLedger, updatedTime } from '../../src/ledger/from-ledger.js';
import type { LedgerRow } from '../../src/ledger/rows.js';

const counts = (f2p: number, p2f: number, rejected?: number) => ({
  fail_to_pass_count: f2p,
  fail_count: 100,
  fail_to_pass_rate: f2p / 100,
  pass_to_fail_count: p2f,
  pass_correct_count: 200 - p2f,
  pass_count: 200,
  pass_to_fail_rate: p2f / 200,
  ...(rejected === undefined ? { macro_f1: 0.9, s_f1: 0.9 } : { rejected_total: rejected }),
});

function evalRow(run: string, finished: string, result: [number, number], decided: [number, number, number] | null) {
  return {
    type: 'eval',
    generation: 1,
    role: 'test',
    run_id: run,
    candidate: run,
    round: 1,
    checkpoint: `runs/${run}/checkpoint-0001.pt`,
    checkpoint_name: 'checkpoint-0001.pt',
    checkpoint_sha256: 'x',
    epoch: 1,
    config_path: `${run}.yaml`,
    status: 'ok',
    validation: null,
    result: counts(...result),
    gate_auc: null,
    gate_curve: null,
    reject_band: null,
    decided: decided ? counts(...decided) : null,
    eval_json: `evals/${run}.json`,
    finished,
  };
}

const ledger = [
  {
    type: 'generation',
    event: 'start',
    generation: 1,
    reason: 'initial',
    split_seed: 20261201,
    previous_champion: null,
    previous_pareto_set: [],
    started: 't0',
  },
  { type: 'run', generation: 1, run_id: 'a' },
  evalRow('a', 't1', [5, 5], [4, 3, 10]),
  evalRow('b', 't2', [3, 9], [2, 5, 12]),
  evalRow('c', 't3', [9, 1], [2, 5, 8]),
  evalRow('old', 't4', [0, 0], null),
  evalRow('d', 't5', [4, 4], [1, 9, 30]),
]
  .map((row) => JSON.stringify(row))
  .join('\n');

describe('stateFromLedger', () => {
  it('in band-decision mode picks the front member with the fewest decided (f2p, p2f, rejections)', () => {
    const state = stateFromLedger(
      ledger,
      'ledger.jsonl',
      { mode: 'band-decisions', saturationEvals: 200, maxReserveChecks: 3 },
      'state',
    );
    // Decided counts: a (4,3), b (2,5), c (2,5), d (1,9): none dominates another; the tie b, c is kept.
    expect(state.pareto_set.map((row) => row.run_id)).toEqual(['a', 'b', 'c', 'd']);
    // Fewest Fail->Pass first: d (1).
    expect(state.champion?.run_id).toBe('d');
    // An eval without decided counts is not comparable and not counted.
    expect(state.test_evals).toBe(4);
  });

  it('in default mode keeps the first champion until a row dominates it on the report counts', () => {
    const state = stateFromLedger(
      ledger,
      'ledger.jsonl',
      { mode: 'default', saturationEvals: 200, maxReserveChecks: 3 },
      'state',
    );
    // a (5,5) champion; b (3,9), c (9,1) do not dominate; old (0,0) dominates everything; d (4,4) does not beat it.
    expect(state.champion?.run_id).toBe('old');
    expect(state.pareto_set.map((row) => row.run_id)).toEqual(['old']);
    expect(state.test_evals).toBe(5);
    expect(state.split).toBe('state/splits/gen-001.yaml');
    expect(state.updated).toBe('t5');
  });

  it('breaks a tie in band-decision mode by fewer rejections, then the earliest', () => {
    const tied = [
      evalRow('x', 't1', [1, 1], [2, 2, 9]),
      evalRow('y', 't2', [1, 1], [2, 2, 4]),
      evalRow('z', 't3', [1, 1], [2, 2, 4]),
    ]
      .map((row) => JSON.stringify(row))
      .join('\n');
    const opening = JSON.stringify({ type: 'generation', generation: 1, reason: 'initial', started: 't0' });
    const state = stateFromLedger(
      `${opening}\n${tied}`,
      'l',
      { mode: 'band-decisions', saturationEvals: 200, maxReserveChecks: 3 },
      's',
    );
    expect(state.champion?.run_id).toBe('y');
  });

  it("gives state.json's `updated` as the newest time a row records, not the last row's", () => {
    // Rows come in handling order: a run whose trainer finished first can be handled after an eval.
    const rows = [
      evalRow('a', '2026-12-01T16:10:42.873Z', [1, 1], null),
      { ...evalRow('b', '2026-12-01T16:10:42.862Z', [1, 1], null), type: 'run' },
    ] as unknown as LedgerRow[];
    expect(updatedTime(rows)).toBe('2026-12-01T16:10:42.873Z');
    expect(updatedTime([], '2026-12-01T16:00:00.000Z')).toBe('2026-12-01T16:00:00.000Z');
    expect(updatedTime(rows, '2026-12-01T17:00:00.000Z')).toBe('2026-12-01T17:00:00.000Z');
    expect(updatedTime([])).toBe('');
    const text = rows.map((row) => JSON.stringify(row)).join('\n');
    const settings = { mode: 'default', saturationEvals: 1, maxReserveChecks: 1 } as const;
    expect(stateFromLedger(text, 'l', settings, 's').updated).toBe('2026-12-01T16:10:42.873Z');
  });

  it('names the line that is not a ledger row', () => {
    expect(() =>
      stateFromLedger(
        '{"type": "generation", "generation": 1}\nnot json\n',
        'old.jsonl',
        { mode: 'default', saturationEvals: 1, maxReserveChecks: 1 },
        's',
      ),
    ).toThrow(LedgerLineError);
    expect(() =>
      stateFromLedger(
        '{"type": "generation", "generation": 1}\nnot json\n',
        'old.jsonl',
        { mode: 'default', saturationEvals: 1, maxReserveChecks: 1 },
        's',
      ),
    ).toThrow(/old\.jsonl:2/);
  });
});
