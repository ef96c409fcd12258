import type { FileRef } from '../artifacts/file-ref.js';
import type { RunRow } from '../ledger/rows.js';
import { MANIFEST_NAME } from '../rules/constants.js';
import { ensembleRunId, roundEnsembleRunId, roundManifestName } from '../rules/ids.js';
import { definedFields } from '../support/defined-fields.js';

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
    | 'members_left_out'
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

/** A member as the ensemble's run row lists it: its manifest pair at least. */
interface RowMember {
  readonly config: string;
  readonly checkpoint: string;
}

/** The manifest the generation wrote for an ensemble, and the members it left out (write-ensemble-manifest.ts). */
interface WrittenManifest {
  readonly path: string;
  readonly sha256: string;
  readonly files?: readonly FileRef[];
  readonly left_out?: readonly (RowMember & { readonly why: string })[];
}

/** The members a written manifest holds: all of them unless it left some out (their files gone). */
export function keptMembers<M extends RowMember>(members: readonly M[], manifest: WrittenManifest): M[] {
  const gone = manifest.left_out ?? [];
  return members.filter(
    (member) => !gone.some((left) => left.config === member.config && left.checkpoint === member.checkpoint),
  );
}

/** The row's words for the members the manifest left out (absent when none): the row lists exactly the manifest's members. */
function leftOutOf(manifest: WrittenManifest): Pick<RunRow, 'members_left_out'> {
  const gone = manifest.left_out ?? [];
  if (gone.length === 0) return {};
  return { members_left_out: gone.map(({ config, checkpoint, why }) => ({ config, checkpoint, why })) };
}

/** The teacher-member ensemble of a generation, scored right after a successful teacher build. */
export function teacherEnsembleRun(
  generation: number,
  afterRound: number,
  manifest: WrittenManifest,
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
    ...definedFields({ files: manifest.files }),
    started: now,
    ...leftOutOf(manifest),
  });
}

/** The all-selected-checkpoints ensemble after a finished round. */
export function roundEnsembleRun(
  generation: number,
  round: number,
  manifest: WrittenManifest,
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
    ...definedFields({ files: manifest.files }),
    ...leftOutOf(manifest),
  });
}
