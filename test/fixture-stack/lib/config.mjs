// @ts-check
/** Job configs: the loop's YAML (split, seed, anything else) plus the fixture knobs. */
import { createHash } from 'node:crypto';
import YAML from 'yaml';
import { UsageError } from './args.mjs';
import { asRecord, isRecord, optionalString } from './check.mjs';
import { readText } from './files.mjs';

/**
 * @typedef {object} Config
 * @property {string} path
 * @property {string} sha256 of the file's bytes
 * @property {Record<string, unknown>} values
 * @property {string} split
 * @property {number} seed
 * @property {number} quality 0..1: fixture_quality, else quality, else 0.5
 * @property {number} epochs fixture_epochs, else epochs, else 4
 * @property {number} sleepMs per training epoch (fixture_sleep_ms)
 * @property {number} evalSleepMs per evaluation job (fixture_eval_sleep_ms)
 * @property {string | undefined} waitFor a file the trainer waits for before it finishes (fixture_wait_for)
 * @property {unknown} trainMode fixture_train
 * @property {unknown} evalMode fixture_eval
 * @property {string | undefined} softTargets gate_soft_targets
 * @property {string} modelKey hash of the keys that shape the model (not split, seed, faults)
 */

/** Keys that must not change the model: where data comes from, the seed, fault knobs. */
const NOT_MODEL = [
  'split',
  'seed',
  'gate_soft_targets',
  'fixture_train',
  'fixture_eval',
  'fixture_sleep_ms',
  'fixture_eval_sleep_ms',
  'fixture_wait_for',
];

/**
 * @param {string} path
 * @returns {Config}
 */
export function readConfig(path) {
  const text = readText(path, 'config');
  /** @type {unknown} */
  const parsed = YAML.parse(text);
  const values = asRecord(parsed, `config ${path}`);
  const what = `config ${path}`;
  const split = optionalString(values, 'split', what);
  if (split === undefined) throw new UsageError(`${what}: split is required`);
  const modelValues = Object.fromEntries(Object.entries(values).filter(([key]) => !NOT_MODEL.includes(key)));
  return {
    path,
    sha256: createHash('sha256').update(text).digest('hex'),
    values,
    split,
    seed: numberOr(values.seed, 0),
    quality: Math.min(1, Math.max(0, numberOr(values.fixture_quality, numberOr(values.quality, 0.5)))),
    epochs: Math.max(1, Math.floor(numberOr(values.fixture_epochs, numberOr(values.epochs, 4)))),
    sleepMs: numberOr(values.fixture_sleep_ms, 0),
    evalSleepMs: numberOr(values.fixture_eval_sleep_ms, 0),
    waitFor: optionalString(values, 'fixture_wait_for', what),
    trainMode: values.fixture_train,
    evalMode: values.fixture_eval,
    softTargets: optionalString(values, 'gate_soft_targets', what),
    modelKey: createHash('sha256').update(canonical(modelValues)).digest('hex').slice(0, 16),
  };
}

/**
 * @param {unknown} value
 * @param {number} fallback
 */
function numberOr(value, fallback) {
  return typeof value === 'number' && Number.isFinite(value) ? value : fallback;
}

/**
 * JSON with sorted keys, so key order in the YAML does not change the model.
 * @param {unknown} value
 * @returns {string}
 */
function canonical(value) {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  if (isRecord(value)) {
    const keys = Object.keys(value).sort();
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonical(value[key])}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}
