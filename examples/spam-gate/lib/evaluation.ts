import process from 'node:process';
import { jsonlText, jsonText, sha256Text, writeAtomic } from './files.js';
import { buildReport } from './report.js';
import { cachedScores } from './score-cache.js';
import { readScoreRows } from './scores-file.js';
import { scoreMessages } from './scoring.js';
import type { GateModel } from './model.js';
import type { SplitData } from './split-data.js';
import type { Featurizer } from './vectors.js';

/** One evaluation: a checkpoint (or an ensemble's members) scored on one role. */
export interface EvalJob {
  readonly role: string;
  readonly data: SplitData;
  readonly featurizer: Featurizer;
  /** One model, or an ensemble's members (their mean margin is scored). */
  readonly models: () => readonly GateModel[];
  /** The checkpoint or manifest path, and the sha256 of its bytes. */
  readonly source: string;
  readonly sourceSha256: string;
  /** What else fixes the scores beyond the source's bytes (an ensemble's member hashes). */
  readonly cacheKey: readonly string[];
  readonly output: string;
  readonly scoresOutput: string;
  readonly bandScores: string | undefined;
  readonly scoreCacheDir: string | undefined;
  readonly extra?: Readonly<Record<string, unknown>>;
}

/** Scores first, report last (atomically): a report on disk always has its scores beside it. */
export function runEvalJob(job: EvalJob): void {
  const ids = job.data.ids(job.role);
  const key = ['spam-gate-scores/1', job.sourceSha256, ...job.cacheKey, job.role, sha256Text(ids.join('\n'))];
  const rows = cachedScores(job.scoreCacheDir, key, () =>
    scoreMessages(job.models(), job.data.messages(job.role), job.featurizer),
  );
  writeAtomic(job.scoresOutput, jsonlText(rows));
  const report = buildReport({
    role: job.role,
    checkpoint: job.source,
    checkpointSha256: job.sourceSha256,
    rows,
    bandRows: job.bandScores === undefined ? undefined : readScoreRows(job.bandScores, 'band scores'),
    extra: job.extra,
  });
  writeAtomic(job.output, jsonText(report));
  const decided = report.decided as
    { fail_to_pass_count: number; pass_to_fail_count: number; rejected_total: number } | undefined;
  const band =
    decided === undefined
      ? ''
      : ` decided f2p=${decided.fail_to_pass_count} p2f=${decided.pass_to_fail_count} rejected=${decided.rejected_total}`;
  process.stdout.write(
    `evaluate ${job.role} ${job.source} items=${rows.length} f2p=${String(report.fail_to_pass_count)}` +
      ` p2f=${String(report.pass_to_fail_count)} auc=${String(report.gate_auc)}${band}\n`,
  );
}
