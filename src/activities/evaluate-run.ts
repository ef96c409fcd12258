import { isEnsembleRun } from '../ledger/eval-row.js';
import { isCheckpointName } from '../contract/selection.js';
import type { EvalRow } from '../rules/types.js';
import { evalRow } from './support/eval-rows.js';
import { withItemErrors } from './support/item-errors.js';
import { bandScores, evaluateMany } from './support/evaluator.js';
import { badInput, CONTRACT_ERROR } from './support/step-errors.js';
import type { EvaluateRunInput } from './types.js';
import { batchEvalLog, runDir } from './support/paths.js';
import { evalRowFiles, fetchStepFiles } from './support/step-files.js';

/**
 * Scores the given checkpoints of a run on one role and returns one eval row each
 * (docs/behaviour.md, evaluation): band scores per checkpoint first, then one evaluator process for all of
 * them. A retry reuses every report already finished. A synthetic ensemble run (its config
 * path is the manifest) goes through the ensemble evaluator instead. With `itemErrors` (loop.yaml
 * `champion_rule: paired`) each ok test row also carries its per-item error record.
 */
export async function evaluateRun(input: EvaluateRunInput): Promise<EvalRow[]> {
  const { paths, run, checkpoints, role } = input;
  if (!isEnsembleRun(run)) {
    const bad = checkpoints.filter((name) => !isCheckpointName(name));
    if (bad.length > 0) {
      throw badInput(
        `run ${run.run_id}: checkpoint names without a -NNNN epoch suffix: ${bad.join(', ')}`,
        CONTRACT_ERROR,
      );
    }
  }
  const log = batchEvalLog(paths.stateDir, run.run_id, role);
  // With a store the run may have trained on another host: its files are fetched here unless present.
  if (input.artifacts !== undefined) await fetchStepFiles(input.artifacts, run.files ?? [], log);
  const bands = new Map<string, string | null>();
  for (const name of checkpoints) {
    bands.set(name, await bandScores(input, run, name));
  }
  const reads = await evaluateMany(input, run, checkpoints, role, bands);
  const rows: EvalRow[] = [];
  for (const name of checkpoints) {
    const read = reads.get(name);
    if (read !== undefined) {
      const row = await evalRow(paths, run, name, role, read);
      // Under `champion_rule: paired` only: test rows carry which items they got wrong.
      const judged =
        input.itemErrors === undefined || role !== 'test' ? row : await withItemErrors(paths, row, input.itemErrors);
      // With a store: what another host needs to use the checkpoint, uploaded before the row is returned.
      rows.push(
        input.artifacts === undefined || judged.status !== 'ok'
          ? judged
          : {
              ...judged,
              files: await evalRowFiles(
                input.artifacts,
                paths.stateDir,
                judged,
                run.files ?? [],
                runDir(paths, run.run_id),
                log,
              ),
            },
      );
    }
  }
  return rows;
}
