import type { Decided, EvalRow } from '../../src/rules/types.js';

/** The test set an eval row was scored on, and the rest a test needs to vary. */
export interface EvalRowOptions {
  readonly role?: EvalRow['role'];
  readonly failCount?: number;
  readonly passCount?: number;
  readonly candidate?: string;
  readonly decided?: Decided | null;
  /** The minute its `finished` time falls in; the epoch gives the seconds. */
  readonly minute?: string;
}

/** An ok eval row of generation 1, round 1, as the loop records one, with these two error counts. */
export function evalRowOf(
  runId: string,
  epoch: number,
  f2p: number,
  p2f: number,
  {
    role = 'test',
    failCount = 60,
    passCount = 240,
    candidate = runId,
    decided = null,
    minute = '2026-01-05T08:00',
  }: EvalRowOptions = {},
): EvalRow {
  return {
    type: 'eval',
    generation: 1,
    role,
    run_id: runId,
    candidate,
    round: 1,
    checkpoint: `runs/${runId}/checkpoint-${epoch}.pt`,
    checkpoint_name: `checkpoint-${epoch}.pt`,
    checkpoint_sha256: null,
    epoch,
    config_path: `configs/${runId}.yaml`,
    status: 'ok',
    validation: null,
    result: {
      fail_to_pass_count: f2p,
      fail_count: failCount,
      fail_to_pass_rate: f2p / failCount,
      pass_to_fail_count: p2f,
      pass_correct_count: passCount - p2f,
      pass_count: passCount,
      pass_to_fail_rate: p2f / passCount,
      macro_f1: 0.9,
      s_f1: 0.9,
    },
    gate_auc: null,
    gate_curve: null,
    reject_band: null,
    decided,
    eval_json: `evals/${runId}/checkpoint-${epoch}.${role}.json`,
    finished: `${minute}:${String(epoch).padStart(2, '0')}Z`,
  };
}
