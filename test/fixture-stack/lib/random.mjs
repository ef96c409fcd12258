// @ts-check
/** Seeded hashing: every "random" number of the fixture is a pure function of its key. */

/**
 * 32-bit FNV-1a over a string, finished with murmur3's avalanche step.
 * @param {string} text
 * @returns {number}
 */
function hash32(text) {
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

/**
 * A number in (0, 1) fixed by its key parts.
 * @param {...(string | number)} parts
 * @returns {number}
 */
export function unit(...parts) {
  return (hash32(parts.join('|')) + 0.5) / 4294967296;
}

/**
 * A standard normal number fixed by its key parts (Box-Muller).
 * @param {...(string | number)} parts
 * @returns {number}
 */
export function gaussian(...parts) {
  const radius = Math.sqrt(-2 * Math.log(unit(...parts, 'g1')));
  return radius * Math.cos(2 * Math.PI * unit(...parts, 'g2'));
}

/**
 * The values ordered by a seeded hash of each one: a deterministic shuffle.
 * @param {readonly string[]} values
 * @param {...(string | number)} parts
 * @returns {string[]}
 */
export function shuffled(values, ...parts) {
  return values
    .map((value) => ({ value, key: hash32([...parts, value].join('|')) }))
    .sort((a, b) => a.key - b.key || (a.value < b.value ? -1 : 1))
    .map((entry) => entry.value);
}

/**
 * Round to six decimals so written numbers stay short and stable.
 * @param {number} value
 * @returns {number}
 */
export function round6(value) {
  return Math.round(value * 1e6) / 1e6;
}
