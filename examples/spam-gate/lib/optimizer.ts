/**
 * A parameter update from a sparse gradient: only the touched coordinates change (lazy
 * updates), so a step costs what a batch touches, not the width of the hash.
 */
export interface Optimizer {
  step(params: Float64Array, gradient: Float64Array, touched: readonly number[]): void;
}

export interface OptimizerSettings {
  readonly kind: 'adam' | 'sgd';
  readonly learningRate: number;
  /** L2 penalty on weights (never on the bias, the last parameter). */
  readonly l2: number;
}

export function createOptimizer(settings: OptimizerSettings, size: number): Optimizer {
  return settings.kind === 'adam' ? new LazyAdam(settings, size) : new Sgd(settings, size);
}

class Sgd implements Optimizer {
  constructor(
    private readonly settings: OptimizerSettings,
    private readonly size: number,
  ) {}

  step(params: Float64Array, gradient: Float64Array, touched: readonly number[]): void {
    const { learningRate, l2 } = this.settings;
    const bias = this.size - 1;
    for (const i of touched) {
      const decay = i === bias ? 0 : l2 * (params[i] ?? 0);
      params[i] = (params[i] ?? 0) - learningRate * ((gradient[i] ?? 0) + decay);
    }
  }
}

const BETA1 = 0.9;
const BETA2 = 0.999;
const EPSILON = 1e-8;

class LazyAdam implements Optimizer {
  private readonly first: Float64Array;
  private readonly second: Float64Array;
  private steps = 0;

  constructor(
    private readonly settings: OptimizerSettings,
    private readonly size: number,
  ) {
    this.first = new Float64Array(size);
    this.second = new Float64Array(size);
  }

  step(params: Float64Array, gradient: Float64Array, touched: readonly number[]): void {
    const { learningRate, l2 } = this.settings;
    this.steps += 1;
    const rate = (learningRate * Math.sqrt(1 - BETA2 ** this.steps)) / (1 - BETA1 ** this.steps);
    const bias = this.size - 1;
    for (const i of touched) {
      const g = (gradient[i] ?? 0) + (i === bias ? 0 : l2 * (params[i] ?? 0));
      const m = BETA1 * (this.first[i] ?? 0) + (1 - BETA1) * g;
      const v = BETA2 * (this.second[i] ?? 0) + (1 - BETA2) * g * g;
      this.first[i] = m;
      this.second[i] = v;
      params[i] = (params[i] ?? 0) - (rate * m) / (Math.sqrt(v) + EPSILON);
    }
  }
}
