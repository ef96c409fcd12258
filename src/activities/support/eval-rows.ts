import { readValidationEpoch } from '../../contract/read.js';
import { failedEvalRow, isEnsembleRun, type EvalSource } from '../../ledger/eval-row.js';
import { heldoutResult } from '../../rules/heldout.js';
import type { EvalRow, Role } from '../../rules/types.js';
import { activityHooks } from './activity-context.js';
import { runDir } from './paths.js';
import { appendLogLine, type ReportRead } from './reports.js';
import { validationFile } from './run-dir.js';
import type { LoopPaths } from '../types.js';

/**
 * One `eval` ledger row (docs/ledger.md, eval): status ok with the report's counts, or failed
 * when there is no usable report; a failed row says why (its `error`, not a seed field), as do
 * the evaluator's log and the activity log. `validation` is the epoch's validation-epoch-NNNN.json, null when unreadable.
 */
export async function evalRow(
  paths: LoopPaths,
  run: EvalSource,
  name: string,
  role: Role,
  read: ReportRead,
): Promise<EvalRow> {
  const finished = new Date().toISOString();
  const base = failedEvalRow(run, name, role, paths, finished);
  const validation = isEnsembleRun(run) ? null : await validationMetrics(runDir(paths, run.run_id), name);
  let problem = read.problem;
  if (read.report !== null) {
    const report = read.report;
    try {
      return {
        ...base,
        status: 'ok',
        checkpoint_sha256: report.checkpoint_sha256,
        validation,
        result: heldoutResult(report),
        // Reports finished before these keys existed simply lack them.
        gate_auc: report.gate_auc ?? null,
        gate_curve: report.gate_curve ?? null,
        reject_band: report.reject_band ?? null,
        decided: report.decided ?? null,
      };
    } catch (error) {
      problem = `invalid report: ${error instanceof Error ? error.message : String(error)}`;
    }
  }
  const line = `eval failed ${run.run_id} ${name} ${role}: ${problem ?? 'no report'}`;
  await appendLogLine(read.log, line);
  activityHooks().warn(line, { runId: run.run_id, checkpoint: name, role, log: read.log });
  return { ...base, validation, error: `${problem ?? 'no report'}; see ${read.log}` };
}

async function validationMetrics(dir: string, name: string): Promise<Record<string, unknown> | null> {
  try {
    return await readValidationEpoch(validationFile(dir, name, 'json'));
  } catch {
    return null;
  }
}
