import type { FeatureSettings, SparseVector } from './features.js';

/** A linear gate over hashed features: margin = bias + weights . x, the logit of "pass". */
export interface GateModel {
  readonly features: FeatureSettings;
  readonly weights: Float32Array;
  readonly bias: number;
}

/** margin > 0 means pass; sigmoid(margin) is the model's probability that the mail is ham. */
export function margin(model: GateModel, vector: SparseVector): number {
  let sum = model.bias;
  for (let i = 0; i < vector.indices.length; i += 1) {
    sum += (model.weights[vector.indices[i] ?? 0] ?? 0) * (vector.values[i] ?? 0);
  }
  return sum;
}

/**
 * The model as a checkpoint stores it (float32 weights), taken from the trainer's float64
 * parameters (bias last): validation is scored with exactly what the evaluator will load.
 */
export function snapshot(params: Float64Array, features: FeatureSettings): GateModel {
  const dimension = features.hash_dimension;
  return {
    features,
    weights: Float32Array.from(params.subarray(0, dimension)),
    bias: Math.fround(params[dimension] ?? 0),
  };
}

export function sigmoid(value: number): number {
  return value >= 0 ? 1 / (1 + Math.exp(-value)) : Math.exp(value) / (1 + Math.exp(value));
}

/** Cross-entropy of a (soft) target against sigmoid(margin), stable for large margins. */
export function logLoss(marginValue: number, target: number): number {
  const softplus = (x: number): number => (x > 0 ? x + Math.log1p(Math.exp(-x)) : Math.log1p(Math.exp(x)));
  return target * softplus(-marginValue) + (1 - target) * softplus(marginValue);
}
