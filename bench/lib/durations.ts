// Seeded job durations: the same seed gives the same trace on every machine. Pure, no I/O.

/** mulberry32: a small, fast, seeded generator of floats in [0, 1). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` durations drawn uniformly from [minMs, maxMs], whole milliseconds. */
export function drawDurations(count: number, seed: number, minMs: number, maxMs: number): number[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => Math.round(minMs + (maxMs - minMs) * random()));
}
