// @ts-check
/**
 * The synthetic data set: N items whose target and difficulty are seeded hashes of the
 * item index. `<data-root>/dataset.json` may set {items, pass_rate, salt}.
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from './args.mjs';
import { asRecord } from './check.mjs';
import { readJson } from './files.mjs';
import { unit } from './random.mjs';

/** @typedef {{ items: number, pass_rate: number, salt: string }} DatasetSpec */
/** @typedef {{ id: string, index: number, target: 0 | 1, difficulty: number }} Item */

/** @type {DatasetSpec} */
const DEFAULT_DATASET = { items: 1000, pass_rate: 0.7, salt: 'fixture' };

/**
 * @param {string} dataRoot
 * @returns {DatasetSpec}
 */
export function readDatasetSpec(dataRoot) {
  const path = join(dataRoot, 'dataset.json');
  if (!existsSync(path)) return { ...DEFAULT_DATASET };
  return checkedSpec(readJson(path, 'dataset.json'));
}

/**
 * @param {unknown} value
 * @returns {DatasetSpec}
 */
export function checkedSpec(value) {
  const record = asRecord(value, 'dataset');
  const spec = { ...DEFAULT_DATASET, ...record };
  if (!Number.isInteger(spec.items) || spec.items < 1)
    throw new UsageError('dataset: items must be a positive integer');
  if (typeof spec.pass_rate !== 'number' || spec.pass_rate < 0 || spec.pass_rate > 1) {
    throw new UsageError('dataset: pass_rate must be a number in [0, 1]');
  }
  if (typeof spec.salt !== 'string') throw new UsageError('dataset: salt must be a string');
  return { items: spec.items, pass_rate: spec.pass_rate, salt: spec.salt };
}

/** @param {number} index */
function itemId(index) {
  return `item-${String(index).padStart(6, '0')}`;
}

/**
 * @param {DatasetSpec} spec
 * @param {string} id
 * @returns {Item}
 */
export function itemFor(spec, id) {
  const match = /^item-(\d+)$/.exec(id);
  const index = match ? Number(match[1]) : NaN;
  if (!(index >= 0 && index < spec.items)) throw new UsageError(`unknown item id ${id}`);
  const target = unit(spec.salt, 'target', index) < spec.pass_rate ? 1 : 0;
  return { id, index, target, difficulty: unit(spec.salt, 'difficulty', index) ** 2 };
}

/**
 * @param {DatasetSpec} spec
 * @returns {string[]}
 */
export function allIds(spec) {
  return Array.from({ length: spec.items }, (_, index) => itemId(index));
}
