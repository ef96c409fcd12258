// Objects with optional keys under exactOptionalPropertyTypes: a key whose value is undefined is
// left out, not set to undefined. Pure (no imports), so workflow code uses it too. The keys kept
// stay in the order written, so an object built with it serializes as the conditional spread of
// each key (an empty object when the value is undefined) that it replaces did.

/** `T` with each key that may be undefined made optional, without undefined as its value. */
export type DefinedFields<T> = {
  [K in keyof T as undefined extends T[K] ? never : K]: T[K];
} & {
  [K in keyof T as undefined extends T[K] ? K : never]?: Exclude<T[K], undefined>;
};

/** `fields` without the keys whose value is undefined: `{ ...definedFields({ x, y }) }` has `x` only when x is defined. */
export function definedFields<T extends object>(fields: T): DefinedFields<T> {
  const kept: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) kept[key] = value;
  return kept as DefinedFields<T>;
}
