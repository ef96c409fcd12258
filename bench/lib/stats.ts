// Percentiles and summaries of latency samples: pure, no I/O.

/** The p-th percentile (0..100) of samples, interpolated between the closest ranks (numpy's default). */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  if (p < 0 || p > 100) throw new RangeError(`percentile must be within 0..100 (got ${p})`);
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = (p / 100) * (sorted.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const below = sorted[low] as number;
  const above = sorted[high] as number;
  return below + (above - below) * (rank - low);
}

/** What a benchmark reports of a set of samples. */
export interface Summary {
  readonly n: number;
  readonly min: number;
  readonly p50: number;
  readonly p95: number;
  readonly p99: number;
  readonly max: number;
  readonly mean: number;
}

export function summarize(samples: readonly number[]): Summary {
  const n = samples.length;
  return {
    n,
    min: n === 0 ? Number.NaN : Math.min(...samples),
    p50: percentile(samples, 50),
    p95: percentile(samples, 95),
    p99: percentile(samples, 99),
    max: n === 0 ? Number.NaN : Math.max(...samples),
    mean: n === 0 ? Number.NaN : samples.reduce((sum, value) => sum + value, 0) / n,
  };
}

/** One call's time (ms) and value. */
export async function timed<T>(call: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const start = performance.now();
  const value = await call();
  return { ms: performance.now() - start, value };
}

/** The median time of `times` calls, and the last call's value. */
export async function medianTime<T>(times: number, call: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const spans: number[] = [];
  let value: T | undefined;
  for (let i = 0; i < times; i += 1) {
    const one = await timed(call);
    spans.push(one.ms);
    value = one.value;
  }
  return { ms: percentile(spans, 50), value: value as T };
}
