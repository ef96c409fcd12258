import { chooseBand, decide } from './band.js';
import { auc, counts, f1Scores, gateCurve, type Scored } from './metrics.js';

export interface ReportInput {
  readonly role: string;
  /** The checkpoint (or ensemble manifest) path as given. */
  readonly checkpoint: string;
  readonly checkpointSha256: string;
  readonly rows: readonly Scored[];
  /** Validation scores that fix the reject band; without them the report has no band. */
  readonly bandRows: readonly Scored[] | undefined;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** The evaluator report: the counts the loop compares, AUC, curve and band decisions. */
export function buildReport(input: ReportInput): Record<string, unknown> {
  const c = counts(input.rows);
  const report: Record<string, unknown> = {
    role: input.role,
    checkpoint: input.checkpoint,
    checkpoint_sha256: input.checkpointSha256,
    ...input.extra,
    items: input.rows.length,
    ...c,
    ...f1Scores(c),
    gate_auc: auc(input.rows),
    gate_curve: gateCurve(input.rows),
  };
  if (input.bandRows !== undefined) {
    const band = chooseBand(input.bandRows);
    report.reject_band = band;
    report.decided = decide(input.rows, band);
  }
  return report;
}
