// Seeded numbers: every "random" choice of the stack is a pure function of its seed.

/** 32-bit FNV-1a over a string, finished with murmur3's avalanche step. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** A mulberry32 generator of numbers in [0, 1). */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Fisher-Yates shuffle of 0..n-1 driven by a seeded generator. */
export function shuffledIndices(n: number, seed: number): Int32Array {
  const order = new Int32Array(n);
  for (let i = 0; i < n; i += 1) order[i] = i;
  const next = generator(seed);
  for (let i = n - 1; i > 0; i -= 1) {
    const j = Math.floor(next() * (i + 1));
    const swap = order[i] ?? 0;
    order[i] = order[j] ?? 0;
    order[j] = swap;
  }
  return order;
}

/** The values ordered by a seeded hash of each: a shuffle that does not depend on input order. */
export function hashShuffled(values: readonly string[], ...key: readonly (string | number)[]): string[] {
  const prefix = `${key.join('|')}|`;
  return values
    .map((value) => ({ value, rank: hash32(prefix + value) }))
    .sort((a, b) => a.rank - b.rank || (a.value < b.value ? -1 : a.value > b.value ? 1 : 0))
    .map((entry) => entry.value);
}

/** Six decimals keep written margins short and make file and report agree exactly. */
export function round6(value: number): number {
  return Math.round(value * 1e6) / 1e6;
}

/** Combines two 32-bit hashes into one (a word pair, a word in the subject). */
export function mix32(a: number, b: number): number {
  let h = Math.imul(a ^ 0x9e3779b9, 0x85ebca6b) ^ b;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  return (h ^ (h >>> 16)) >>> 0;
}
