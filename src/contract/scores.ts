import { z } from 'zod';
import { checkAgainst, type Problem } from '../config/problems.js';
import { ContractError } from './errors.js';
import { jsonSyntaxProblem } from './json-text.js';

/** One scored item: its gate margin (> 0 means "pass") and its 0/1 target (1 = pass item). */
const scoresRowSchema = z.looseObject(
  {
    margin: z.number({ error: 'a finite number' }),
    target: z.literal([0, 1], { error: '0 or 1 (1 = pass item)' }),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'one JSON object per line' : undefined) },
);

/** One row of a scores JSONL file; keys other than margin and target are kept. */
export type ScoresRow = z.output<typeof scoresRowSchema>;

/** Parses a scores JSONL file (blank lines skipped); every problem names its line. */
export function parseScores(text: string, file: string): ScoresRow[] {
  const rows: ScoresRow[] = [];
  const problems: Problem[] = [];
  let syntax = false;
  text.split('\n').forEach((raw, index) => {
    const line = index + 1;
    const source = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (source.trim() === '') {
      return;
    }
    let value: unknown;
    try {
      value = JSON.parse(source);
    } catch (error) {
      syntax = true;
      problems.push(jsonSyntaxProblem(source, error, line));
      return;
    }
    const result = checkAgainst(scoresRowSchema, value, 'json');
    if (result.success) {
      rows.push(result.data);
    } else {
      problems.push(...result.problems.map(({ field, expected, found }) => ({ field, expected, found, line })));
    }
  });
  if (problems.length > 0) {
    throw new ContractError(file, syntax ? 'syntax' : 'invalid', problems);
  }
  return rows;
}
