import { checkpointEpoch, checkpointStem } from '../rules/ids.js';
import type { EvalRow, Role } from '../rules/types.js';
import type { RunRow } from './rows.js';
import { definedFields } from '../support/defined-fields.js';

/** Report path of one checkpoint evaluation: `<state_dir>/evals/<run_id>/<stem>.<role>.json`, the seed's layout. */
export function evalReportPath(stateDir: string, runId: string, checkpointName: string, role: Role): string {
  return `${stateDir}/evals/${runId}/${checkpointStem(checkpointName)}.${role}.json`;
}

/** Per-item gate margins of one checkpoint evaluation: the report's path with `.scores.jsonl` for `.json`. */
export function evalScoresPath(stateDir: string, runId: string, checkpointName: string, role: Role): string {
  return `${stateDir}/evals/${runId}/${checkpointStem(checkpointName)}.${role}.scores.jsonl`;
}

/** Whether a run row is a synthetic ensemble (its config path is the manifest). */
export function isEnsembleRun(run: Pick<RunRow, 'status'>): boolean {
  return run.status === 'ensemble';
}

/** What an eval row takes from its run. */
export type EvalSource = Pick<
  RunRow,
  'generation' | 'round' | 'candidate' | 'run_id' | 'config_path' | 'status' | 'members'
>;

/** The run fields of an existing eval row (to score the same checkpoint on another role). */
export function evalSourceOf(row: EvalRow): EvalSource {
  return {
    generation: row.generation,
    round: row.round,
    candidate: row.candidate,
    run_id: row.run_id,
    config_path: row.config_path,
    status: row.manifest === undefined ? 'trained' : 'ensemble',
    ...definedFields({ members: row.members }),
  };
}

/** A `failed` eval row: the checkpoint counts as scored but has no report. */
export function failedEvalRow(
  run: EvalSource,
  checkpointName: string,
  role: Role,
  paths: { readonly stateDir: string; readonly runsRoot: string },
  finished: string,
): EvalRow {
  const ensemble = isEnsembleRun(run);
  return {
    type: 'eval',
    generation: run.generation,
    role,
    run_id: run.run_id,
    candidate: run.candidate,
    round: run.round,
    checkpoint: ensemble ? run.config_path : `${paths.runsRoot}/${run.run_id}/${checkpointName}`,
    checkpoint_name: checkpointName,
    checkpoint_sha256: null,
    epoch: ensemble ? null : checkpointEpoch(checkpointName),
    config_path: run.config_path,
    status: 'failed',
    validation: null,
    result: null,
    gate_auc: null,
    gate_curve: null,
    reject_band: null,
    decided: null,
    eval_json: evalReportPath(paths.stateDir, run.run_id, checkpointName, role),
    finished,
    ...(ensemble ? { manifest: run.config_path, members: run.members ?? [] } : {}),
  };
}
