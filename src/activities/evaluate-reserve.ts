import { evalSourceOf } from '../ledger/eval-row.js';
import { evalRow } from './support/eval-rows.js';
import { bandScores, evaluateOne } from './support/evaluator.js';
import type { ReserveInput, ReserveOutcome } from './types.js';

/**
 * Scores the champion once on the reserve role with its band scores (the evaluation part of a
 * reserve check, docs/behaviour.md, reserve check); the workflow judges the verdict. A retry reuses a finished report.
 */
export async function evaluateReserve(input: ReserveInput): Promise<ReserveOutcome> {
  const run = evalSourceOf(input.champion);
  const band = await bandScores(input, run, input.checkpointName);
  const read = await evaluateOne(input, run, input.checkpointName, 'reserve', band);
  return { row: await evalRow(input.paths, run, input.checkpointName, 'reserve', read) };
}
