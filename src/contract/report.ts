import { z } from 'zod';
import { count } from './fields.js';
import { parseJsonWith } from './json-text.js';

type Refinement = z.core.$RefinementCtx;

/** Adds an issue when a part exceeds the total it is a part of (both being valid counts). */
function atMost(context: Refinement, record: Readonly<Record<string, unknown>>, part: string, total: string): void {
  const value = record[part];
  const limit = record[total];
  if (isCount(value) && isCount(limit) && value > limit) {
    context.addIssue({ code: 'custom', path: [part], input: value, message: `at most ${total} (${limit})` });
  }
}

function isCount(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0;
}

/** Counts after the reject band; items inside the band are neither passed nor failed. */
const decidedSchema = z
  .looseObject(
    {
      fail_to_pass_count: count,
      fail_count: count,
      pass_to_fail_count: count,
      pass_count: count,
      pass_correct_count: count.optional(),
      rejected_total: count.optional(),
      fail_to_pass_rate: z.number({ error: 'a rate (a number)' }).optional(),
      pass_to_fail_rate: z.number({ error: 'a rate (a number)' }).optional(),
    },
    { error: (issue) => (issue.code === 'invalid_type' ? 'an object of decided counts, or null' : undefined) },
  )
  .superRefine((decided, context) => {
    atMost(context, decided, 'fail_to_pass_count', 'fail_count');
    atMost(context, decided, 'pass_to_fail_count', 'pass_count');
    atMost(context, decided, 'pass_correct_count', 'pass_count');
  });

/** The evaluator's report (one checkpoint on one role); unknown keys are kept. */
const reportSchema = z
  .looseObject(
    {
      pass_count: count,
      pass_correct_count: count,
      fail_count: count,
      fail_to_pass_count: count,
      macro_f1: z.number({ error: 'a number' }),
      s_f1: z.number({ error: 'a number' }),
      checkpoint_sha256: z.string({ error: 'a sha256 string' }).min(1, { error: 'a sha256 string (not empty)' }),
      gate_auc: z
        .number({ error: 'a number between 0 and 1, or null' })
        .min(0, { error: 'a number between 0 and 1, or null' })
        .max(1, { error: 'a number between 0 and 1, or null' })
        .nullable()
        .optional(),
      gate_curve: z.unknown().optional(),
      reject_band: z.unknown().optional(),
      decided: decidedSchema.nullable().optional(),
    },
    { error: (issue) => (issue.code === 'invalid_type' ? 'an evaluator report object' : undefined) },
  )
  .superRefine((report, context) => {
    atMost(context, report, 'pass_correct_count', 'pass_count');
    atMost(context, report, 'fail_to_pass_count', 'fail_count');
  });

/** An evaluator report as read: the contract's fields checked, every other key kept. */
export type Report = z.output<typeof reportSchema>;

/** Parses an evaluator report; throws a ContractError naming the file and the field. */
export function parseReport(text: string, file: string): Report {
  return parseJsonWith(reportSchema, text, file);
}
