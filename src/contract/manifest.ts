import { z } from 'zod';
import { filePath } from './fields.js';
import { parseJsonWith } from './json-text.js';

/** An ensemble manifest: the (config, checkpoint) pairs whose gate margins are averaged. */
const manifestSchema = z.looseObject(
  {
    members: z
      .array(z.looseObject({ config: filePath, checkpoint: filePath }, { error: 'an object {config, checkpoint}' }), {
        error: 'a list of {config, checkpoint} members',
      })
      .min(1, { error: 'a non-empty list of {config, checkpoint} members' }),
  },
  { error: (issue) => (issue.code === 'invalid_type' ? 'an object {members: [{config, checkpoint}]}' : undefined) },
);

/** An ensemble manifest; unknown keys kept. */
export type Manifest = z.output<typeof manifestSchema>;

/** Parses an ensemble manifest; throws a ContractError naming the file and the field. */
export function parseManifest(text: string, file: string): Manifest {
  return parseJsonWith(manifestSchema, text, file);
}
