import type { SparseVector } from './features.js';
import { logLoss, sigmoid } from './model.js';
import type { Optimizer } from './optimizer.js';

/** One training mail: its features, its (possibly soft) target and its loss weight. */
export interface Example {
  readonly vector: SparseVector;
  readonly target: number;
  readonly weight: number;
}

/**
 * One pass of minibatch gradient descent on weighted logistic loss over `order`; returns the
 * mean loss seen. `params` holds the hashed weights, then the bias.
 */
export function trainEpoch(
  params: Float64Array,
  optimizer: Optimizer,
  examples: readonly Example[],
  order: Int32Array,
  batchSize: number,
): number {
  const bias = params.length - 1;
  const gradient = new Float64Array(params.length);
  const stamps = new Int32Array(params.length);
  let batch = 0;
  let loss = 0;
  for (let start = 0; start < order.length; start += batchSize) {
    batch += 1;
    const end = Math.min(order.length, start + batchSize);
    const scale = 1 / (end - start);
    const touched: number[] = [];
    const touch = (i: number, amount: number): void => {
      if (stamps[i] !== batch) {
        stamps[i] = batch;
        gradient[i] = 0;
        touched.push(i);
      }
      gradient[i] = (gradient[i] ?? 0) + amount;
    };
    for (let k = start; k < end; k += 1) {
      const example = examples[order[k] ?? 0];
      if (example === undefined) continue;
      const { indices, values } = example.vector;
      let z = params[bias] ?? 0;
      for (let j = 0; j < indices.length; j += 1) z += (params[indices[j] ?? 0] ?? 0) * (values[j] ?? 0);
      loss += example.weight * logLoss(z, example.target);
      const delta = example.weight * (sigmoid(z) - example.target) * scale;
      for (let j = 0; j < indices.length; j += 1) touch(indices[j] ?? 0, delta * (values[j] ?? 0));
      touch(bias, delta);
    }
    optimizer.step(params, gradient, touched);
  }
  return order.length === 0 ? 0 : loss / order.length;
}
