import { z } from 'zod';
import { filePath } from './fields.js';
import { parseJsonWith } from './json-text.js';

/** One checkpoint of a batch evaluation; teacher batches also carry the config and its sha256. */
const evalJobSchema = z.looseObject(
  {
    checkpoint: filePath,
    output: filePath,
    scores_output: filePath,
    band_scores: filePath.optional(),
    config: filePath.optional(),
    config_sha256: z.string({ error: 'a sha256 string' }).optional(),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type' ? 'an object {checkpoint, output, scores_output, band_scores?}' : undefined,
  },
);

/** The batch evaluator's jobs file (`--jobs J`): one entry per checkpoint. */
const jobsFileSchema = z
  .array(evalJobSchema, { error: 'a list of jobs' })
  .min(1, { error: 'a non-empty list of jobs' });

/** One batch evaluation job. */
export type EvalJob = z.output<typeof evalJobSchema>;

/** Parses a jobs file; throws a ContractError naming the file and the field. */
export function parseJobs(text: string, file: string): EvalJob[] {
  return parseJsonWith(jobsFileSchema, text, file);
}
