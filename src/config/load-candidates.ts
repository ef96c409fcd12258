import { resolve } from 'node:path';
import type { Candidate } from './candidate.js';
import { candidatesFileSchema } from './candidates.js';
import { ConfigError } from './errors.js';
import type { Problem } from './problems.js';
import { pathKind, readFileText } from './read-file.js';
import { parseYamlWith } from './yaml-text.js';

/**
 * Reads and checks candidates.yaml: base configs resolve against `workdir` and must exist.
 * Throws a ConfigError naming the file, the field and, for a missing base config, the candidate.
 */
export async function loadCandidates(path: string, workdir: string): Promise<Candidate[]> {
  const text = await readFileText(path, ConfigError);
  const { data, locate } = parseYamlWith(candidatesFileSchema, text, path);
  const candidates = data.candidates.map((candidate) => ({
    ...candidate,
    base_config: resolve(workdir, candidate.base_config),
  }));
  const problems: Problem[] = [];
  for (const [index, candidate] of candidates.entries()) {
    const kind = await pathKind(candidate.base_config);
    if (kind === 'file') {
      continue;
    }
    const written = data.candidates[index]?.base_config ?? candidate.base_config;
    problems.push({
      field: `candidates.${index}.base_config`,
      expected: `an existing base config file for candidate "${candidate.name}"`,
      found: `${JSON.stringify(written)} at ${candidate.base_config}, ${kind === 'missing' ? 'which does not exist' : 'which is not a file'}`,
      ...locate(['candidates', index, 'base_config']),
    });
  }
  if (problems.length > 0) {
    throw new ConfigError(path, 'invalid', problems);
  }
  return candidates;
}
