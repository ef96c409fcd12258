import { UsageError } from './args.js';
import { asRecord, isRecord, needNumber, needString } from './check.js';
import type { FeatureSettings } from './features.js';
import { jsonText, readJson } from './files.js';
import type { GateModel } from './model.js';
import { checkedFeatures } from './settings.js';

const CHECKPOINT_FORMAT = 'spam-gate-checkpoint/1';

/** What a checkpoint records besides its weights: where it came from. */
export type Provenance = Record<string, unknown>;

/**
 * A checkpoint as JSON with its float32 weights in base64 (little-endian): all of them, or only
 * the non-zero ones with their uint32 indices when that is smaller. Text digits would triple
 * the size of a model that already weighs hundreds of KiB.
 */
export function checkpointText(model: GateModel, epoch: number, provenance: Provenance): string {
  const nonzero: number[] = [];
  model.weights.forEach((weight, index) => {
    if (weight !== 0) nonzero.push(index);
  });
  const dense = 2 * nonzero.length >= model.weights.length;
  const stored = dense ? model.weights.map((_, index) => index) : nonzero;
  const values = Buffer.alloc(4 * stored.length);
  stored.forEach((index, at) => values.writeFloatLE(model.weights[index] ?? 0, 4 * at));
  const indices = Buffer.alloc(dense ? 0 : 4 * nonzero.length);
  if (!dense) nonzero.forEach((index, at) => indices.writeUInt32LE(index, 4 * at));
  return jsonText({
    format: CHECKPOINT_FORMAT,
    epoch,
    features: model.features,
    bias: model.bias,
    encoding: dense ? 'dense' : 'sparse',
    nonzero: nonzero.length,
    ...(dense ? {} : { indices: indices.toString('base64') }),
    weights: values.toString('base64'),
    ...provenance,
  });
}

export function readCheckpoint(path: string): GateModel & { epoch: number } {
  return parseCheckpoint(readJson(path, 'checkpoint'), `checkpoint ${path}`);
}

export function parseCheckpoint(value: unknown, what: string): GateModel & { epoch: number } {
  const record = asRecord(value, what);
  if (record.format !== CHECKPOINT_FORMAT) throw new UsageError(`${what} is not a ${CHECKPOINT_FORMAT} file`);
  if (!isRecord(record.features)) throw new UsageError(`${what}: features must be an object`);
  const features: FeatureSettings = checkedFeatures(record.features, `${what}: features`);
  const values = Buffer.from(needString(record, 'weights', what), 'base64');
  const weights = new Float32Array(features.hash_dimension);
  if (record.encoding === 'dense') {
    if (values.length !== 4 * weights.length)
      throw new UsageError(`${what}: weights must hold ${weights.length} floats`);
    weights.forEach((_, index) => {
      weights[index] = values.readFloatLE(4 * index);
    });
  } else {
    const indices = Buffer.from(needString(record, 'indices', what), 'base64');
    if (indices.length !== values.length || values.length % 4 !== 0) {
      throw new UsageError(`${what}: indices and weights must hold the same number of entries`);
    }
    for (let at = 0; at < values.length / 4; at += 1) {
      const index = indices.readUInt32LE(4 * at);
      if (index >= weights.length) throw new UsageError(`${what}: weight index ${index} is outside the hash dimension`);
      weights[index] = values.readFloatLE(4 * at);
    }
  }
  return { epoch: needNumber(record, 'epoch', what), features, weights, bias: needNumber(record, 'bias', what) };
}
