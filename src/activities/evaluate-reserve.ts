import { evalSourceOf } from '../ledger/eval-row.js';
import { evalRow } from './support/eval-rows.js';
import { bandScores, evaluateOne } from './support/evaluator.js';
import { laneAdmission } from './support/lane-admission.js';
import type { ReserveInput, ReserveOutcome, LaneAdmission } from './types.js';
import { stepLogFile } from './support/paths.js';
import { STEPS, stepLog } from '../contract/steps.js';
import { withStepFiles } from './support/run-dir-cache.js';
import { definedFields } from '../support/defined-fields.js';

/**
 * Scores the champion once on the reserve role with its band scores (the evaluation part of a
 * reserve check, docs/behaviour.md, reserve check); the workflow judges the verdict. A retry reuses a finished report.
 * On a GPU lane that read its device, it also says how the lane admitted the evaluator.
 */
export async function evaluateReserve(input: ReserveInput): Promise<ReserveOutcome> {
  const run = evalSourceOf(input.champion);
  // With a store the champion was trained and scored on another host: its files are fetched here unless present.
  if (input.artifacts === undefined) return scoreReserve(input);
  return withStepFiles(
    input.artifacts,
    input.paths.runsRoot,
    input.champion.files ?? [],
    stepLogFile(input.paths.stateDir, stepLog(STEPS.evaluateReserve.logs.batch, { runId: run.run_id })),
    () => scoreReserve(input),
  );
}

/** The champion scored on the reserve role (its files on this host). */
async function scoreReserve(input: ReserveInput): Promise<ReserveOutcome> {
  const run = evalSourceOf(input.champion);
  const band = await bandScores(input, run, input.checkpointName);
  // How the lane admitted the reserve evaluator (not its band scores'): the check's dispatch rows.
  let admission: LaneAdmission | undefined;
  let peakMiB = 0;
  const read = await evaluateOne(
    {
      ...input,
      onStep: (result) => {
        admission = laneAdmission(result) ?? admission;
        peakMiB = Math.max(peakMiB, result.gpu?.peakMiB ?? 0);
      },
    },
    run,
    input.checkpointName,
    'reserve',
    band,
  );
  const row = await evalRow(input.paths, run, input.checkpointName, 'reserve', read);
  return {
    row,
    ...definedFields({ admission }),
    ...(peakMiB > 0 ? { peakMiB } : {}),
  };
}
