import { z } from 'zod';
import type { Candidate } from './candidate.js';
import { nonEmptyString } from './fields.js';
import { parseYamlWith } from './yaml-text.js';

/** Candidate names become file and directory names and parts of run ids; '.' and '..' cannot match. */
const CANDIDATE_NAME_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

const NAME_EXPECTED = "must be a safe file name: letters, digits, '_', '-', '.' (first a letter or digit)";

/**
 * The longest candidate name: run ids and file names are built from it (the longest the loop
 * writes, e.g. `champ-g001-r0001-NAME.checkpoint-0003.validation.eval.log`, adds 53 characters, more
 * with a stack's longer checkpoint names) and must fit the file system's 255-byte name limit.
 */
export const CANDIDATE_NAME_MAX = 128;

const candidateSchema = z.strictObject(
  {
    name: z
      .string({ error: NAME_EXPECTED })
      .regex(CANDIDATE_NAME_PATTERN, { error: NAME_EXPECTED })
      .max(CANDIDATE_NAME_MAX, {
        error: (issue) =>
          `at most ${CANDIDATE_NAME_MAX} characters (got ${String((issue.input as string).length)}): run ids and file names ` +
          `are built from it (e.g. champ-g001-r0001-NAME.checkpoint-0003.validation.eval.log) and must fit the file system's 255-byte name limit`,
      }),
    base_config: nonEmptyString('a path to the base config file'),
    overrides: z
      .record(z.string(), z.unknown(), { error: 'a mapping of config keys to values, e.g. {hidden: 512}' })
      .default(() => ({})),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'a candidate: {name, base_config, overrides}' : undefined) },
);

/** The candidates file: `{candidates: [{name, base_config, overrides}]}`, unknown keys refused. */
export const candidatesFileSchema = z.strictObject(
  {
    candidates: z
      .array(candidateSchema, { error: 'a list of candidates, e.g. [{name: base, base_config: configs/base.yaml}]' })
      .superRefine((candidates, context) => {
        const firstIndex = new Map<string, number>();
        candidates.forEach((candidate, index) => {
          const earlier = firstIndex.get(candidate.name);
          if (earlier === undefined) {
            firstIndex.set(candidate.name, index);
            return;
          }
          context.addIssue({
            code: 'custom',
            path: [index, 'name'],
            input: candidate.name,
            message: `a unique name: duplicate candidate name "${candidate.name}" (also candidates.${earlier}.name)`,
          });
        });
      }),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'a mapping with a "candidates" list' : undefined) },
);

/** Parses candidates.yaml text; throws a ConfigError naming the file, field and what was expected. */
export function parseCandidates(text: string, file: string): Candidate[] {
  return parseYamlWith(candidatesFileSchema, text, file).data.candidates;
}
