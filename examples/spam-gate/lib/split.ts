import { UsageError } from './args.js';
import { asRecord } from './check.js';
import { checkedSpec, targetOfGroup, type DatasetSpec } from './dataset.js';
import { readText, writeAtomic } from './files.js';
import { hashShuffled } from './random.js';

/** A split file: the dataset it draws from and the message ids of each role. */
export interface Split {
  readonly seed: number;
  readonly dataset: DatasetSpec;
  readonly roles: Readonly<Record<string, readonly string[]>>;
}

const ROLES = ['development', 'validation', 'test', 'reserve'] as const;
const FORMAT = 'spam-gate-split/1';

/** Split files are JSON (which is YAML too): JSON.parse keeps every step's start-up short. */
export async function readSplit(path: string): Promise<Split> {
  const text = readText(path, 'split');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = (await import('yaml')).parse(text);
  }
  const record = asRecord(parsed, `split ${path}`);
  const roles = asRecord(record.roles, `split ${path}: roles`);
  const ids: Record<string, string[]> = {};
  for (const [role, list] of Object.entries(roles)) {
    if (!Array.isArray(list) || !list.every((id): id is string => typeof id === 'string')) {
      throw new UsageError(`split ${path}: role ${role} must list message ids`);
    }
    ids[role] = list;
  }
  return { seed: Number(record.seed), dataset: checkedSpec(record.dataset, `split ${path}: dataset`), roles: ids };
}

/** One role per line, so a reader can see the sizes at a glance and diffs stay small. */
export function writeSplit(path: string, split: Split): void {
  const roles = ROLES.filter((role) => split.roles[role] !== undefined).map(
    (role) => `    ${JSON.stringify(role)}: ${JSON.stringify(split.roles[role])}`,
  );
  const head = [`  "format": "${FORMAT}"`, `  "seed": ${split.seed}`, `  "dataset": ${JSON.stringify(split.dataset)}`];
  writeAtomic(path, `{\n${head.join(',\n')},\n  "roles": {\n${roles.join(',\n')}\n  }\n}\n`);
}

/**
 * Moves a seeded fraction of `from`'s ids to a new role, ham and spam separately, so every role
 * keeps the corpus's class balance (the reserve z-test compares rates across roles).
 */
export function carve(split: Split, from: string, role: string, fraction: number, seed: number): Split {
  const source = split.roles[from];
  if (source === undefined) throw new UsageError(`split has no ${from} role to carve from`);
  if (split.roles[role] !== undefined) throw new UsageError(`split already has a ${role} role`);
  if (!(fraction > 0 && fraction < 1)) throw new UsageError(`fraction must be in (0, 1), not ${fraction}`);
  const taken = new Set<string>();
  for (const target of [0, 1]) {
    const members = source.filter((id) => targetOfId(id) === target);
    for (const id of hashShuffled(members, seed, role, target).slice(0, Math.round(members.length * fraction)))
      taken.add(id);
  }
  return {
    ...split,
    roles: {
      ...split.roles,
      [from]: source.filter((id) => !taken.has(id)),
      [role]: source.filter((id) => taken.has(id)),
    },
  };
}

/** A message id starts with its corpus folder, which fixes its class. */
function targetOfId(id: string): 0 | 1 {
  return targetOfGroup(id.slice(0, id.indexOf('/')));
}

export function roleIds(split: Split, role: string): readonly string[] {
  const ids = split.roles[role];
  if (ids === undefined) throw new UsageError(`split has no ${role} role`);
  return ids;
}
