import { resolve } from 'node:path';
import type { Candidate } from './candidate.js';
import { candidatesFileSchema } from './candidates.js';
import { ConfigError } from './errors.js';
import type { Problem } from './problems.js';
import { pathKind, pathKindWords, readFileText } from './read-file.js';
import { loadPyYaml, type PyMap, type PyValue, toJsonSafe } from './pyyaml/index.js';
import { parseYamlWith } from './yaml-text.js';

/**
 * Reads and checks candidates.yaml: base configs resolve against `workdir` and must exist.
 * Throws a ConfigError naming the file, the field and, for a missing base config, the candidate.
 */
export async function loadCandidates(path: string, workdir: string): Promise<Candidate[]> {
  const text = await readFileText(path, ConfigError);
  const { data, locate } = parseYamlWith(candidatesFileSchema, text, path);
  const typed = overridesAsPyyaml(text);
  const candidates = data.candidates.map((candidate, index) => ({
    ...candidate,
    overrides: typed[index] ?? candidate.overrides,
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
      found: `${JSON.stringify(written)} at ${candidate.base_config}, ${pathKindWords(kind, 'file')}`,
      ...locate(['candidates', index, 'base_config']),
    });
  }
  if (problems.length > 0) {
    throw new ConfigError(path, 'invalid', problems);
  }
  return candidates;
}

/**
 * Each candidate's overrides with the meaning the seed's PyYAML `safe_load` gives them (`yes` is
 * true, `1.0` a float), JSON-safe (`toJsonSafe` in src/config/pyyaml/json.ts); undefined where that reading has no
 * mapping with string keys, and the file's YAML 1.2 reading stands.
 */
function overridesAsPyyaml(text: string): (Record<string, unknown> | undefined)[] {
  let file: PyValue;
  try {
    file = loadPyYaml(text);
  } catch {
    return [];
  }
  const list: unknown = file instanceof Map ? file.get('candidates') : undefined;
  if (!Array.isArray(list)) return [];
  return list.map((item: unknown) => {
    const overrides: unknown = item instanceof Map ? (item as PyMap).get('overrides') : undefined;
    if (!(overrides instanceof Map) || [...(overrides as PyMap).keys()].some((key) => typeof key !== 'string'))
      return undefined;
    return Object.fromEntries([...(overrides as PyMap)].map(([key, value]) => [key as string, toJsonSafe(value)]));
  });
}
