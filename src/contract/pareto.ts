import { z } from 'zod';
import { parseJsonWith } from './json-text.js';
import { checkpointNameSchema } from './selection.js';

/** pareto.json: the checkpoints on training's own validation front. */
const paretoSchema = z.looseObject(
  {
    checkpoints: z.array(z.looseObject({ checkpoint: checkpointNameSchema }, { error: 'an object {checkpoint}' }), {
      error: 'a list of {checkpoint} objects',
    }),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'an object {checkpoints: [{checkpoint}]}' : undefined) },
);

/** Training's validation front; unknown keys kept. */
export type Pareto = z.output<typeof paretoSchema>;

/** Parses pareto.json; throws a ContractError naming the file and the field. */
export function parsePareto(text: string, file: string): Pareto {
  return parseJsonWith(paretoSchema, text, file);
}
