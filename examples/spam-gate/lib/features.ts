/** How a mail becomes a vector; a checkpoint carries these so it scores mail on its own. */
export interface FeatureSettings {
  /** 1: words; 2: words and adjacent word pairs. */
  readonly ngram: 1 | 2;
  /** Width of the hashed feature vector (the hashing trick). */
  readonly hash_dimension: number;
  /** Body characters read per mail. */
  readonly max_body_chars: number;
}

/** A sparse feature vector: parallel arrays of indices and values. */
export interface SparseVector {
  readonly indices: Int32Array;
  readonly values: Float64Array;
}

interface Scratch {
  readonly sums: Float64Array;
  readonly stamps: Int32Array;
  stamp: number;
}

// One dense scratch row per width, reused for every mail: no per-mail maps to allocate.
const scratches = new Map<number, Scratch>();

function scratchFor(dimension: number): Scratch {
  let scratch = scratches.get(dimension);
  if (scratch === undefined) {
    scratch = { sums: new Float64Array(dimension), stamps: new Int32Array(dimension), stamp: 0 };
    scratches.set(dimension, scratch);
  }
  return scratch;
}

/**
 * Hashes token hashes into `dimension` buckets: log(1 + count) per token, a hash-chosen sign so
 * that collisions cancel rather than pile up, then unit length so long mails do not shout.
 */
export function hashVector(tokens: Uint32Array, dimension: number): SparseVector {
  const sorted = Uint32Array.from(tokens).sort();
  const scratch = scratchFor(dimension);
  scratch.stamp += 1;
  const touched: number[] = [];
  for (let start = 0; start < sorted.length;) {
    const hash = sorted[start] ?? 0;
    let end = start + 1;
    while (end < sorted.length && sorted[end] === hash) end += 1;
    const index = hash % dimension;
    const sign = hash >= 0x80000000 ? -1 : 1;
    if (scratch.stamps[index] !== scratch.stamp) {
      scratch.stamps[index] = scratch.stamp;
      scratch.sums[index] = 0;
      touched.push(index);
    }
    scratch.sums[index] = (scratch.sums[index] ?? 0) + sign * Math.log1p(end - start);
    start = end;
  }
  let norm = 0;
  for (const index of touched) norm += (scratch.sums[index] ?? 0) ** 2;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  const indices = Int32Array.from(touched);
  const values = new Float64Array(touched.length);
  touched.forEach((index, at) => {
    values[at] = (scratch.sums[index] ?? 0) * scale;
  });
  return { indices, values };
}
