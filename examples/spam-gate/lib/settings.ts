import { UsageError } from './args.js';
import type { FeatureSettings } from './features.js';

// Checked config values: a wrong key fails the step at once with the key's name and its range.

export function numberIn(value: unknown, fallback: number, min: number, max: number, what: string): number {
  const number = value ?? fallback;
  if (typeof number !== 'number' || !Number.isFinite(number) || number < min || number > max) {
    throw new UsageError(`${what} must be a number in [${min}, ${max}], not ${JSON.stringify(value)}`);
  }
  return number;
}

export function integerIn(value: unknown, fallback: number, min: number, max: number, what: string): number {
  const number = numberIn(value, fallback, min, max, what);
  if (!Number.isInteger(number)) throw new UsageError(`${what} must be an integer, not ${number}`);
  return number;
}

export function oneOf<T extends string | number>(value: unknown, fallback: T, allowed: readonly T[], what: string): T {
  const chosen = value ?? fallback;
  const match = allowed.find((option) => option === chosen);
  if (match === undefined)
    throw new UsageError(`${what} must be one of ${allowed.join(', ')}, not ${JSON.stringify(value)}`);
  return match;
}

const DEFAULT_FEATURES: FeatureSettings = { ngram: 1, hash_dimension: 65536, max_body_chars: 20000 };

export function checkedFeatures(values: Readonly<Record<string, unknown>>, what: string): FeatureSettings {
  return {
    ngram: oneOf(values.ngram, DEFAULT_FEATURES.ngram, [1, 2] as const, `${what}: ngram`),
    hash_dimension: integerIn(
      values.hash_dimension,
      DEFAULT_FEATURES.hash_dimension,
      16,
      2 ** 24,
      `${what}: hash_dimension`,
    ),
    max_body_chars: integerIn(
      values.max_body_chars,
      DEFAULT_FEATURES.max_body_chars,
      100,
      10_000_000,
      `${what}: max_body_chars`,
    ),
  };
}
