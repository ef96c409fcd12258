import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './args.js';
import { asRecord } from './check.js';
import { readText } from './files.js';

/** Which part of the SpamAssassin corpus a loop trains on; it travels inside every split file. */
export interface DatasetSpec {
  readonly corpus: 'spam-assassin';
  /** Corpus folders to use: easy-ham-1, easy-ham-2, hard-ham-1 (pass), spam-1, spam-2 (fail). */
  readonly groups: readonly string[];
  /** At most this many messages of each group, the first by id (a small, fast corpus); 0 = all. */
  readonly max_per_group: number;
}

const ALL_GROUPS = ['easy-ham-1', 'easy-ham-2', 'hard-ham-1', 'spam-1', 'spam-2'] as const;

const DEFAULT_DATASET: DatasetSpec = { corpus: 'spam-assassin', groups: [...ALL_GROUPS], max_per_group: 0 };

const FILES = ['dataset.yaml', 'dataset.yml', 'dataset.json'];

/** The data root's dataset file, or the whole corpus when the root has none. */
export async function readDatasetSpec(dataRoot: string): Promise<DatasetSpec> {
  const file = FILES.map((name) => join(dataRoot, name)).find((path) => existsSync(path));
  if (file === undefined) return DEFAULT_DATASET;
  const { parse } = await import('yaml');
  return checkedSpec(parse(readText(file, 'dataset file')), file);
}

export function checkedSpec(value: unknown, what: string): DatasetSpec {
  const record = asRecord(value ?? {}, what);
  const corpus = record.corpus ?? DEFAULT_DATASET.corpus;
  if (corpus !== 'spam-assassin') throw new UsageError(`${what}: corpus must be spam-assassin`);
  const groups = record.groups ?? DEFAULT_DATASET.groups;
  if (
    !Array.isArray(groups) ||
    groups.length === 0 ||
    !groups.every((g): g is string => ALL_GROUPS.includes(g as never))
  ) {
    throw new UsageError(`${what}: groups must be a non-empty list out of ${ALL_GROUPS.join(', ')}`);
  }
  if (!groups.some((g) => targetOfGroup(g) === 1) || !groups.some((g) => targetOfGroup(g) === 0)) {
    throw new UsageError(`${what}: groups need at least one ham and one spam folder`);
  }
  const max = record.max_per_group ?? 0;
  if (typeof max !== 'number' || !Number.isInteger(max) || max < 0) {
    throw new UsageError(`${what}: max_per_group must be an integer >= 0`);
  }
  return { corpus, groups: [...new Set(groups)], max_per_group: max };
}

/** Ham is what the gate lets through (target 1); spam is what it stops (target 0). */
export function targetOfGroup(group: string): 0 | 1 {
  return group.includes('ham') ? 1 : 0;
}
