import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ContractError } from '../../contract/errors.js';
import { readReport } from '../../contract/read.js';
import type { Report } from '../../contract/report.js';

/** A report as read after an evaluation: the report, or why there is none usable. */
export interface ReportRead {
  readonly report: Report | null;
  /** Why there is no usable report (missing, invalid, evaluator failed); null when there is one. */
  readonly problem: string | null;
  /** The evaluator ran in this call and failed (exit code or signal). */
  readonly evaluatorFailed: boolean;
  /** The log of the evaluator that wrote (or should have written) the report. */
  readonly log: string;
}

/** Reads a report; a missing or contract-breaking one becomes a problem, not an exception. */
export async function readReportAt(
  path: string,
  log: string,
  evaluatorFailed = false,
  failure: string | null = null,
): Promise<ReportRead> {
  try {
    return { report: await readReport(path), problem: null, evaluatorFailed, log };
  } catch (error) {
    if (error instanceof ContractError) {
      const problem = error.kind === 'missing' ? `no report at ${path}` : `invalid report: ${error.message}`;
      return { report: null, problem: failure === null ? problem : `${problem} (${failure})`, evaluatorFailed, log };
    }
    throw error;
  }
}

/** Appends one time-stamped line to a step's log (the loop's own remarks among the command's output). */
export async function appendLogLine(log: string, line: string): Promise<void> {
  await mkdir(dirname(log), { recursive: true });
  await appendFile(log, `--- ${new Date().toISOString()} ${line}\n`);
}
