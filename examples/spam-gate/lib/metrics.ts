import { gateAuc } from '../../../src/rules/gate-auc.js';
import { round6 } from './random.js';

/** A scored item: its 0/1 target (1 = pass) and its gate margin. */
export interface Scored {
  readonly target: number;
  readonly margin: number;
}

/** The counts the loop compares; a margin above the threshold passes. */
export interface Counts {
  readonly pass_count: number;
  readonly pass_correct_count: number;
  readonly fail_count: number;
  readonly fail_to_pass_count: number;
  readonly pass_to_fail_count: number;
}

export function counts(rows: readonly Scored[], threshold = 0): Counts {
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

function f1(hits: number, falseAlarms: number, misses: number): number {
  const denominator = 2 * hits + falseAlarms + misses;
  return denominator === 0 ? 0 : (2 * hits) / denominator;
}

/** Macro F1 (mean of both classes) and s_f1, the F1 of the spam (fail) class the gate stops. */
export function f1Scores(c: Counts): { macro_f1: number; s_f1: number } {
  const pass = f1(c.pass_correct_count, c.fail_to_pass_count, c.pass_to_fail_count);
  const spam = f1(c.fail_count - c.fail_to_pass_count, c.pass_to_fail_count, c.fail_to_pass_count);
  return { macro_f1: round6((pass + spam) / 2), s_f1: round6(spam) };
}

/** Threshold-free ROC AUC of the margins (the loop's own rule, so both agree to the bit). */
export function auc(rows: readonly Scored[]): number | null {
  const value = gateAuc(
    rows.map((row) => row.margin),
    rows.map((row) => row.target),
  );
  return value === null ? null : round6(value);
}

const CURVE_THRESHOLDS = [-2, -1, -0.5, 0, 0.5, 1, 2] as const;

/** Error counts at thresholds around the boundary: how the gate trades one error for the other. */
export function gateCurve(
  rows: readonly Scored[],
): { threshold: number; fail_to_pass: number; pass_to_fail: number }[] {
  return CURVE_THRESHOLDS.map((threshold) => {
    const c = counts(rows, threshold);
    return { threshold, fail_to_pass: c.fail_to_pass_count, pass_to_fail: c.pass_to_fail_count };
  });
}
