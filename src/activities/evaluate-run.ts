import { createHash } from 'node:crypto';
import { isEnsembleRun } from '../ledger/eval-row.js';
import { isCheckpointName } from '../contract/selection.js';
import type { EvalRow } from '../rules/types.js';
import { evalRow } from './support/eval-rows.js';
import { withItemErrors } from './support/item-errors.js';
import { bandScores, evaluateMany } from './support/evaluator.js';
import { badInput, CONTRACT_ERROR, JOB_CONFIG_MISSING } from './support/step-errors.js';
import type { EvaluateRunInput, ScoredRow } from './types.js';
import type { StepResult } from './support/step-types.js';
import { batchEvalLog, runDir } from './support/paths.js';
import { evalRowFiles, uploadStepFiles } from './support/step-files.js';
import { withStepFiles } from './support/run-dir-cache.js';
import { manifestMembers, manifestText, writeManifestFile } from './support/manifest-file.js';
import { exists } from './support/move-aside.js';
import type { ArtifactSettings } from '../artifacts/store-settings.js';
import type { FileRef } from '../artifacts/file-ref.js';
import type { RunRow } from '../ledger/rows.js';

/**
 * Scores the given checkpoints of a run on one role and returns one eval row each
 * (docs/behaviour.md, evaluation): band scores per checkpoint first, then one evaluator process for all of
 * them. A retry reuses every report already finished. A synthetic ensemble run (its config
 * path is the manifest) goes through the ensemble evaluator instead. With `itemErrors` (loop.yaml
 * `champion_rule: paired`) each ok test row also carries its per-item error record.
 */
export async function evaluateRun(input: EvaluateRunInput): Promise<ScoredRow[]> {
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
  if (input.artifacts === undefined) return scoreRun(input, run.files ?? [], log);
  // With a store the run may have trained on another host: its files are fetched here unless present.
  const settings = input.artifacts;
  return withStepFiles(settings, paths.runsRoot, run.files ?? [], log, async () =>
    scoreRun(
      input,
      isEnsembleRun(run) ? await restoredManifest(settings, run, run.files ?? [], log) : (run.files ?? []),
      log,
    ),
  );
}

/** Scores the checkpoints (their files on this host); with a store, each ok row names what another host needs. */
async function scoreRun(input: EvaluateRunInput, runFiles: readonly FileRef[], log: string): Promise<ScoredRow[]> {
  const { paths, run, checkpoints, role } = input;
  // Its evaluator reads the job config: gone with an emptied state dir, the training run writes it again.
  if (!isEnsembleRun(run) && !(await exists(run.config_path))) {
    throw badInput(
      `run ${run.run_id}: its job config ${run.config_path} is gone (was the state dir emptied?)`,
      JOB_CONFIG_MISSING,
    );
  }
  // The most any of its evaluator processes held of the lane's GPU: each row says it, for the generation to learn.
  let peakMiB = 0;
  const context = { ...input, onStep: (result: StepResult) => (peakMiB = Math.max(peakMiB, result.gpu?.peakMiB ?? 0)) };
  const bands = new Map<string, string | null>();
  for (const name of checkpoints) {
    bands.set(name, await bandScores(context, run, name));
  }
  const reads = await evaluateMany(context, run, checkpoints, role, bands);
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
                runFiles,
                runDir(paths, run.run_id),
                log,
              ),
            },
      );
    }
  }
  return peakMiB > 0 ? rows.map((row) => ({ ...row, gpu_peak_mib: peakMiB })) : rows;
}

/**
 * An ensemble whose manifest the store did not take when it was written (its row's files lack
 * it) and that this host does not have: the manifest is written again from the row's members,
 * checked by the row's sha256, and uploaded, so the eval rows name it for the hosts after this one.
 */
async function restoredManifest(
  settings: ArtifactSettings,
  run: RunRow,
  files: readonly FileRef[],
  log: string,
): Promise<readonly FileRef[]> {
  if (files.some((ref) => ref.path === run.config_path) || (await exists(run.config_path))) return files;
  const members = manifestMembers(run.members);
  if (members === null) {
    throw badInput(
      `ensemble ${run.run_id}: manifest ${run.config_path} is not here and its row names no members`,
      CONTRACT_ERROR,
    );
  }
  // Checked before it is written: a file that differs is never left where the next attempt would take it.
  const sha256 = createHash('sha256').update(manifestText(members)).digest('hex');
  if (sha256 !== run.config_sha256) {
    throw badInput(
      `ensemble ${run.run_id}: manifest ${run.config_path} written again from the row's members would have sha256 ${sha256}, the row says ${run.config_sha256}`,
      CONTRACT_ERROR,
    );
  }
  await writeManifestFile(run.config_path, members);
  return [...(await uploadStepFiles(settings, [run.config_path], log)), ...files];
}
