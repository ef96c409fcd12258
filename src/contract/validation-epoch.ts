import { z } from 'zod';
import { parseJsonWith } from './json-text.js';

/** validation-epoch-NNNN.json: one epoch's validation metrics, kept whole in eval rows. */
const validationEpochSchema = z.record(z.string(), z.unknown(), {
  error: 'a JSON object of validation metrics',
});

/** One epoch's validation metrics, whatever keys the stack writes. */
export type ValidationEpoch = z.output<typeof validationEpochSchema>;

/** Parses a validation-epoch file; throws a ContractError naming the file. */
export function parseValidationEpoch(text: string, file: string): ValidationEpoch {
  return parseJsonWith(validationEpochSchema, text, file);
}
