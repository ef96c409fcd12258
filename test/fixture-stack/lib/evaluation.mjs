// @ts-check
/** One evaluation job: score a role, write the scores, then (last, atomically) the report. */
import process from 'node:process';
import { crash, fail, hang, sleep } from './faults.mjs';
import { jsonlText, jsonText, writeAtomic, writeText } from './files.mjs';
import { scoreItems } from './model.mjs';
import { round6 } from './random.mjs';
import { buildReport, readScores } from './report.mjs';
import { roleItems } from './split.mjs';

/** @typedef {import('./faults.mjs').Step} Step */
/** @typedef {import('./model.mjs').Checkpoint} Checkpoint */
/** @typedef {import('./split.mjs').Split} Split */

/**
 * @typedef {object} EvalJob
 * @property {Step} step
 * @property {string} mode the fault mode for this job
 * @property {string} role
 * @property {Split} split
 * @property {readonly Checkpoint[]} checkpoints one, or an ensemble's members
 * @property {string} source the checkpoint or manifest path
 * @property {string} sourceSha256
 * @property {string} output the report path
 * @property {string} scoresOutput
 * @property {string | undefined} bandScores
 * @property {number} sleepMs
 * @property {Record<string, unknown>} [extra]
 */

/** How long `slow` sleeps before scoring when fixture_eval_sleep_ms does not say. */
const SLOW_EVAL_MS = 5000;

/** @param {EvalJob} job */
export async function runEvalJob(job) {
  if (job.mode === 'fail') fail(job.step);
  if (job.mode === 'hang') await hang(job.step);
  await sleep(job.mode === 'slow' && job.sleepMs === 0 ? SLOW_EVAL_MS : job.sleepMs);
  const scored = scoreItems(job.checkpoints, roleItems(job.split, job.role), job.split.dataset.salt);
  const rows =
    job.mode === 'degraded' ? scored.map((row) => ({ ...row, margin: round6(Math.abs(row.margin) + 0.5) })) : scored;
  writeText(job.scoresOutput, jsonlText(rows));
  if (job.mode === 'partial') await crash(job.step, 'partial');
  const report = buildReport({
    role: job.role,
    checkpoint: job.source,
    checkpointSha256: job.sourceSha256,
    rows,
    bandRows: job.bandScores === undefined ? undefined : readScores(job.bandScores),
    extra: job.extra,
  });
  const decided = /** @type {{ fail_to_pass_count?: number, pass_to_fail_count?: number } | undefined} */ (
    report.decided
  );
  const band = decided ? ` decided f2p=${decided.fail_to_pass_count} p2f=${decided.pass_to_fail_count}` : '';
  process.stdout.write(
    `evaluate ${job.role} ${job.source} items=${rows.length} f2p=${String(report.fail_to_pass_count)}` +
      ` p2f=${String(report.pass_to_fail_count)} auc=${String(report.gate_auc)}${band}\n`,
  );
  if (job.mode === 'no_report') return;
  const text = job.mode === 'malformed_report' ? `{"role": "${job.role}", "pass_count": ` : jsonText(report);
  writeAtomic(job.output, text);
}
