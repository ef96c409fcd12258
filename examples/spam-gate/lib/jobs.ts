import { UsageError } from './args.js';
import { asRecord, needString, optionalString } from './check.js';
import { readJson } from './files.js';

/** One batch evaluation job; a teacher batch's jobs also name their own config and its sha256. */
export interface JobSpec {
  readonly checkpoint: string;
  readonly output: string;
  readonly scoresOutput: string;
  readonly bandScores: string | undefined;
  readonly config: string | undefined;
  readonly configSha256: string | undefined;
}

export function readJobs(path: string): JobSpec[] {
  const list = readJson(path, 'jobs file');
  if (!Array.isArray(list) || list.length === 0)
    throw new UsageError(`jobs file must be a non-empty JSON list: ${path}`);
  return list.map((entry, index) => {
    const what = `jobs file ${path} entry ${index}`;
    const job = asRecord(entry, what);
    return {
      checkpoint: needString(job, 'checkpoint', what),
      output: needString(job, 'output', what),
      scoresOutput: needString(job, 'scores_output', what),
      bandScores: optionalString(job, 'band_scores', what),
      config: optionalString(job, 'config', what),
      configSha256: optionalString(job, 'config_sha256', what),
    };
  });
}
