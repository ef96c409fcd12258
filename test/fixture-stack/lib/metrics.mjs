// @ts-check
/** Counts, F1 scores, AUC and the gate curve of scored items (margin > threshold = pass). */
import { round6 } from './random.mjs';

/** @typedef {{ target: number, margin: number }} Scored */
/**
 * @typedef {object} Counts
 * @property {number} pass_count
 * @property {number} pass_correct_count
 * @property {number} fail_count
 * @property {number} fail_to_pass_count
 * @property {number} pass_to_fail_count
 */

/**
 * @param {readonly Scored[]} rows
 * @param {number} [threshold]
 * @returns {Counts}
 */
export function counts(rows, threshold = 0) {
  let passCount = 0;
  let passCorrect = 0;
  let failCount = 0;
  let failToPass = 0;
  for (const row of rows) {
    const passed = row.margin > threshold;
    if (row.target === 1) {
      passCount += 1;
      if (passed) passCorrect += 1;
    } else {
      failCount += 1;
      if (passed) failToPass += 1;
    }
  }
  return {
    pass_count: passCount,
    pass_correct_count: passCorrect,
    fail_count: failCount,
    fail_to_pass_count: failToPass,
    pass_to_fail_count: passCount - passCorrect,
  };
}

/** @param {number} hits @param {number} falseAlarms @param {number} misses */
function f1(hits, falseAlarms, misses) {
  const denominator = 2 * hits + falseAlarms + misses;
  return denominator === 0 ? 0 : (2 * hits) / denominator;
}

/**
 * Macro F1 (mean of both classes) and s_f1 (F1 of the fail class, the one the gate stops).
 * @param {Counts} c
 */
export function f1Scores(c) {
  const pass = f1(c.pass_correct_count, c.fail_to_pass_count, c.pass_to_fail_count);
  const fail = f1(c.fail_count - c.fail_to_pass_count, c.pass_to_fail_count, c.fail_to_pass_count);
  return { macro_f1: round6((pass + fail) / 2), s_f1: round6(fail) };
}

/**
 * Area under the ROC curve of margins against targets (ties count one half); null when a
 * class is empty.
 * @param {readonly Scored[]} rows
 * @returns {number | null}
 */
export function gateAuc(rows) {
  const sorted = [...rows].sort((a, b) => a.margin - b.margin);
  let positives = 0;
  let rankSum = 0;
  for (let start = 0; start < sorted.length;) {
    let end = start;
    while (end < sorted.length && sorted[end]?.margin === sorted[start]?.margin) end += 1;
    const meanRank = (start + 1 + end) / 2;
    for (let i = start; i < end; i += 1) {
      if (sorted[i]?.target === 1) {
        positives += 1;
        rankSum += meanRank;
      }
    }
    start = end;
  }
  const negatives = sorted.length - positives;
  if (positives === 0 || negatives === 0) return null;
  return round6((rankSum - (positives * (positives + 1)) / 2) / (positives * negatives));
}

const CURVE_THRESHOLDS = [-1, -0.5, 0, 0.5, 1];

/**
 * Error counts at a few thresholds around the gate's boundary.
 * @param {readonly Scored[]} rows
 */
export function gateCurve(rows) {
  return CURVE_THRESHOLDS.map((threshold) => {
    const c = counts(rows, threshold);
    return { threshold, fail_to_pass: c.fail_to_pass_count, pass_to_fail: c.pass_to_fail_count };
  });
}
