import type { FileRef } from '../artifacts/file-ref.js';
import type { RunRow } from '../ledger/rows.js';
import { MANIFEST_NAME } from '../rules/constants.js';
import { ensembleRunId, roundEnsembleRunId, roundManifestName } from '../rules/ids.js';

// Synthetic runs of ensembles (docs/behaviour.md, section 7): their config
// is the manifest, their one "checkpoint" the manifest's name, and they compete like any run.

function ensembleRow(
  fields: Pick<
    RunRow,
    | 'generation'
    | 'round'
    | 'candidate'
    | 'run_id'
    | 'config_path'
    | 'config_sha256'
    | 'checkpoints'
    | 'members'
    | 'started'
  >,
): RunRow {
  return {
    type: 'run',
    seed: null,
    status: 'ensemble',
    train_rc: null,
    finished: fields.started,
    epochs_run: null,
    error: null,
    ...fields,
  };
}

/** The teacher-member ensemble of a generation, scored right after a successful teacher build. */
export function teacherEnsembleRun(
  generation: number,
  afterRound: number,
  manifest: { path: string; sha256: string; files?: readonly FileRef[] },
  members: readonly unknown[],
  now: string,
): RunRow {
  return ensembleRow({
    generation,
    round: afterRound,
    candidate: 'ensemble_teacher_members',
    run_id: ensembleRunId(generation),
    config_path: manifest.path,
    config_sha256: manifest.sha256,
    checkpoints: [MANIFEST_NAME],
    members,
    ...(manifest.files === undefined ? {} : { files: manifest.files }),
    started: now,
  });
}

/** The all-selected-checkpoints ensemble after a finished round. */
export function roundEnsembleRun(
  generation: number,
  round: number,
  manifest: { path: string; sha256: string; files?: readonly FileRef[] },
  members: readonly unknown[],
  now: string,
): RunRow {
  return ensembleRow({
    generation,
    round,
    candidate: 'ensemble_round_members',
    run_id: roundEnsembleRunId(generation, round),
    config_path: manifest.path,
    config_sha256: manifest.sha256,
    checkpoints: [roundManifestName(round)],
    members,
    started: now,
    ...(manifest.files === undefined ? {} : { files: manifest.files }),
  });
}
