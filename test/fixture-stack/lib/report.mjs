// @ts-check
/** The evaluator report: the counts the loop compares plus AUC, curve and band decisions. */
import { asRecord, needNumber } from './check.mjs';
import { chooseBand, decide } from './band.mjs';
import { readJsonl } from './files.mjs';
import { counts, f1Scores, gateAuc, gateCurve } from './metrics.mjs';

/** @typedef {import('./metrics.mjs').Scored} Scored */

/**
 * @typedef {object} ReportInput
 * @property {string} role
 * @property {string} checkpoint the checkpoint (or manifest) path as given
 * @property {string} checkpointSha256 sha256 of that file
 * @property {readonly Scored[]} rows the role's scores
 * @property {readonly Scored[] | undefined} bandRows validation scores fixing the reject band
 * @property {Record<string, unknown>} [extra] more keys (an ensemble's member count)
 */

/**
 * @param {ReportInput} input
 * @returns {Record<string, unknown>}
 */
export function buildReport(input) {
  const c = counts(input.rows);
  /** @type {Record<string, unknown>} */
  const report = {
    role: input.role,
    checkpoint: input.checkpoint,
    checkpoint_sha256: input.checkpointSha256,
    ...input.extra,
    items: input.rows.length,
    ...c,
    ...f1Scores(c),
    gate_auc: gateAuc(input.rows),
    gate_curve: gateCurve(input.rows),
  };
  if (input.bandRows) {
    const band = chooseBand(input.bandRows);
    report.reject_band = band;
    report.decided = decide(input.rows, band);
  }
  return report;
}

/**
 * Scores JSONL (at least target and margin per line), e.g. a validation scores file.
 * @param {string} path
 * @returns {Scored[]}
 */
export function readScores(path) {
  return readJsonl(path, 'scores file').map((row) => {
    const record = asRecord(row, `scores file ${path}`);
    return { target: needNumber(record, 'target', path), margin: needNumber(record, 'margin', path) };
  });
}
