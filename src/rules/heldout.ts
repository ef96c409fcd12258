import type { EvaluatorReport, HeldoutResult } from './types.js';

type ReportCounts = Pick<
  EvaluatorReport,
  'pass_count' | 'pass_correct_count' | 'fail_count' | 'fail_to_pass_count' | 'macro_f1' | 's_f1'
>;

/** Reduces an evaluator report to the counts and rates the loop compares. */
export function heldoutResult(report: ReportCounts): HeldoutResult {
  const { pass_count, pass_correct_count, fail_count, fail_to_pass_count } = report;
  // The seed divides unguarded and fails there; a NaN rate in the ledger would be worse.
  if (fail_count === 0 || pass_count === 0) {
    throw new RangeError(`report has fail_count=${fail_count} pass_count=${pass_count}: a rate would divide by zero`);
  }
  const pass_to_fail_count = pass_count - pass_correct_count;
  return {
    fail_to_pass_count,
    fail_count,
    fail_to_pass_rate: fail_to_pass_count / fail_count,
    pass_to_fail_count,
    pass_correct_count,
    pass_count,
    pass_to_fail_rate: pass_to_fail_count / pass_count,
    macro_f1: report.macro_f1,
    s_f1: report.s_f1,
  };
}
