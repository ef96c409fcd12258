// A seeded generator for the selection simulation: the same seed gives the same world on every
// machine (Math.random cannot be seeded), and it is fast enough for millions of draws a second.

/** Uniform draws in [0, 1) and standard normals from one 32-bit seed (mulberry32). */
export interface Random {
  uniform(): number;
  normal(): number;
}

export function seededRandom(seed: number): Random {
  let state = seed >>> 0;
  const uniform = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const normal = (): number => {
    // Box-Muller; 1 - u keeps the logarithm's argument above 0.
    const u = 1 - uniform();
    const v = uniform();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  };
  return { uniform, normal };
}
