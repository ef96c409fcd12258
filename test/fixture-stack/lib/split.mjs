// @ts-check
/**
 * Split files: the data set spec and the item ids of each role. They are written as JSON,
 * which is YAML too, one role per line: JSON.parse reads them far faster than a YAML parser
 * would (subprocess start-up must stay short). Hand-written YAML splits still load.
 */
import { UsageError } from './args.mjs';
import { asRecord } from './check.mjs';
import { checkedSpec, itemFor } from './dataset.mjs';
import { readText, writeText } from './files.mjs';
import { shuffled } from './random.mjs';

/** @typedef {import('./dataset.mjs').DatasetSpec} DatasetSpec */
/** @typedef {import('./dataset.mjs').Item} Item */
/** @typedef {{ dataset: DatasetSpec, seed: number, roles: Record<string, string[]> }} Split */

const ROLES = ['development', 'validation', 'test', 'reserve'];
const FORMAT = 'fixture-split/1';

/**
 * @param {string} path
 * @returns {Promise<Split>}
 */
export async function readSplit(path) {
  const text = readText(path, 'split');
  /** @type {unknown} */
  let parsed;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = (await import('yaml')).parse(text);
  }
  const record = asRecord(parsed, `split ${path}`);
  const roles = asRecord(record.roles, `split ${path}: roles`);
  /** @type {Record<string, string[]>} */
  const ids = {};
  for (const [role, list] of Object.entries(roles)) {
    if (!Array.isArray(list) || !list.every((id) => typeof id === 'string')) {
      throw new UsageError(`split ${path}: role ${role} must list item ids`);
    }
    ids[role] = list;
  }
  return { dataset: checkedSpec(record.dataset), seed: Number(record.seed), roles: ids };
}

/**
 * @param {string} path
 * @param {Split} split
 * @param {number} [limit] write only the first `limit` bytes (a crash mid-write)
 */
export function writeSplit(path, split, limit) {
  const roles = ROLES.filter((role) => split.roles[role]).map(
    (role) => `    ${JSON.stringify(role)}: ${JSON.stringify(split.roles[role])}`,
  );
  const head = [`  "format": "${FORMAT}"`, `  "seed": ${split.seed}`, `  "dataset": ${JSON.stringify(split.dataset)}`];
  const text = `{\n${head.join(',\n')},\n  "roles": {\n${roles.join(',\n')}\n  }\n}\n`;
  writeText(path, limit === undefined ? text : text.slice(0, limit));
}

/**
 * Move a seeded fraction of `from`'s ids to a new role; both keep index order.
 * @param {Split} split
 * @param {string} from
 * @param {string} role
 * @param {number} fraction
 * @param {number} seed
 * @returns {Split}
 */
export function carve(split, from, role, fraction, seed) {
  const source = split.roles[from];
  if (!source) throw new UsageError(`split has no ${from} role to carve from`);
  if (split.roles[role]) throw new UsageError(`split already has a ${role} role`);
  if (!(fraction > 0 && fraction < 1)) throw new UsageError('fraction must be in (0, 1)');
  const taken = new Set(shuffled(source, seed, role).slice(0, Math.round(source.length * fraction)));
  const keep = source.filter((id) => !taken.has(id));
  return { ...split, roles: { ...split.roles, [from]: keep, [role]: source.filter((id) => taken.has(id)) } };
}

/**
 * @param {Split} split
 * @param {string} role
 * @returns {Item[]}
 */
export function roleItems(split, role) {
  const ids = split.roles[role];
  if (!ids) throw new UsageError(`split has no ${role} role`);
  return ids.map((id) => itemFor(split.dataset, id));
}
