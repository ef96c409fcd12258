// @ts-check
/**
 * The fixture "model": two numbers per epoch (skill, bias) and a noise key. An item's gate
 * margin is skill-weighted evidence for its target, shifted by bias, plus seeded noise.
 */
import { UsageError } from './args.mjs';
import { asRecord, needNumber, needString } from './check.mjs';
import { readJson, readJsonl, sha256File } from './files.mjs';
import { itemFor } from './dataset.mjs';
import { gaussian, round6 } from './random.mjs';

/** @typedef {import('./config.mjs').Config} Config */
/** @typedef {import('./dataset.mjs').DatasetSpec} DatasetSpec */
/** @typedef {import('./dataset.mjs').Item} Item */
/** @typedef {{ sha256: string, items: number, separation: number }} Teacher */
/**
 * @typedef {object} Checkpoint
 * @property {string} format
 * @property {number} epoch
 * @property {number} skill
 * @property {number} bias
 * @property {string} noise_key
 * @property {number} quality
 * @property {number} seed
 * @property {string} model_key
 * @property {Teacher | null} teacher
 */
/** @typedef {{ id: string, target: 0 | 1, margin: number }} Score */

const FORMAT = 'fixture-checkpoint/1';

/**
 * The model after `epoch` epochs: skill grows with quality and epochs; both wobble by seed.
 * @param {Config} config
 * @param {number} epoch
 * @param {Teacher | null} teacher
 * @returns {Checkpoint}
 */
export function epochModel(config, epoch, teacher) {
  const key = [config.modelKey, config.seed];
  const growth = 1 - 0.6 * Math.exp(-(epoch - 1) / 1.5);
  let skill = (0.6 + 2.4 * config.quality) * growth + 0.25 * gaussian(...key, 'skill', epoch);
  let bias = 0.35 * gaussian(...key, 'bias', epoch);
  if (teacher) {
    skill += 0.15 * Math.min(3, Math.max(0, teacher.separation));
    bias *= 0.6;
  }
  return {
    format: FORMAT,
    epoch,
    skill: round6(Math.max(0.05, skill)),
    bias: round6(bias),
    noise_key: `${config.modelKey}-${config.seed}-${epoch}`,
    quality: config.quality,
    seed: config.seed,
    model_key: config.modelKey,
    teacher,
  };
}

/**
 * @param {Checkpoint} checkpoint
 * @param {Item} item
 * @param {string} salt the data set's salt (item noise is shared by every model)
 */
function rawMargin(checkpoint, item, salt) {
  const evidence = (item.target ? 1 : -1) * checkpoint.skill * (1 - item.difficulty);
  const itemNoise = 0.45 * gaussian(salt, 'item-noise', item.index);
  return evidence + checkpoint.bias + itemNoise + 0.7 * gaussian(checkpoint.noise_key, item.index);
}

/**
 * Mean margin of the checkpoints on each item (one checkpoint: its own margin).
 * @param {readonly Checkpoint[]} checkpoints
 * @param {readonly Item[]} items
 * @param {string} salt
 * @returns {Score[]}
 */
export function scoreItems(checkpoints, items, salt) {
  return items.map((item) => {
    const sum = checkpoints.reduce((total, checkpoint) => total + rawMargin(checkpoint, item, salt), 0);
    return { id: item.id, target: item.target, margin: round6(sum / checkpoints.length) };
  });
}

/**
 * @param {string} path
 * @returns {Checkpoint}
 */
export function readCheckpoint(path) {
  const record = asRecord(readJson(path, 'checkpoint'), `checkpoint ${path}`);
  const what = `checkpoint ${path}`;
  if (record.format !== FORMAT) throw new UsageError(`${what} is not a ${FORMAT} file`);
  const teacher =
    record.teacher === null || record.teacher === undefined ? null : /** @type {Teacher} */ (record.teacher);
  return {
    format: FORMAT,
    epoch: needNumber(record, 'epoch', what),
    skill: needNumber(record, 'skill', what),
    bias: needNumber(record, 'bias', what),
    noise_key: needString(record, 'noise_key', what),
    quality: needNumber(record, 'quality', what),
    seed: needNumber(record, 'seed', what),
    model_key: needString(record, 'model_key', what),
    teacher,
  };
}

/**
 * A teacher file (JSONL of {id, margin}) summed up as how well it separates the targets.
 * @param {string} path
 * @param {DatasetSpec} spec
 * @returns {Teacher}
 */
export function readTeacher(path, spec) {
  const rows = readJsonl(path, 'teacher file (gate_soft_targets)');
  if (rows.length === 0) throw new UsageError(`teacher file is empty: ${path}`);
  let separation = 0;
  for (const row of rows) {
    const record = asRecord(row, `teacher file ${path}`);
    const item = itemFor(spec, needString(record, 'id', path));
    separation += (item.target ? 1 : -1) * needNumber(record, 'margin', path);
  }
  return { sha256: sha256File(path), items: rows.length, separation: round6(separation / rows.length) };
}
