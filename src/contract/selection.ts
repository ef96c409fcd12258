import { z } from 'zod';
import { checkpointStem } from '../rules/ids.js';
import { count } from './fields.js';
import { parseJsonWith } from './json-text.js';

const CHECKPOINT_EXPECTED = 'a checkpoint file name whose stem ends in -NNNN (its epoch), e.g. checkpoint-0007.pt';

/** Whether a name is a bare file name carrying its epoch, as the seed reads it. */
export function isCheckpointName(name: string): boolean {
  return !/[/\\]/.test(name) && /-\d+$/.test(checkpointStem(name));
}

/** A checkpoint file name inside its run directory, e.g. `checkpoint-0007.pt`. */
export const checkpointNameSchema = z
  .string({ error: CHECKPOINT_EXPECTED })
  .refine(isCheckpointName, { error: CHECKPOINT_EXPECTED });

/** selection.json: the checkpoint training selected on validation. */
const selectionSchema = z.looseObject(
  {
    checkpoint: checkpointNameSchema,
    epoch: count.optional(),
    false_negatives: count.optional(),
  },
  {
    error: (issue) => (issue.code === 'invalid_type' ? 'an object {checkpoint, epoch?, false_negatives?}' : undefined),
  },
);

/** What training selected; unknown keys kept. */
export type Selection = z.output<typeof selectionSchema>;

/** Parses selection.json; throws a ContractError naming the file and the field. */
export function parseSelection(text: string, file: string): Selection {
  return parseJsonWith(selectionSchema, text, file);
}
