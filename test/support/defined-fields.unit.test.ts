import { describe, expect, expectTypeOf, it } from 'vitest';
import { definedFields } from '../../src/support/defined-fields.js';

describe('definedFields', () => {
  it('leaves out the keys whose value is undefined, keeps null, false and 0, in the order written', () => {
    const fields = definedFields({ b: 1, a: undefined as string | undefined, c: null, d: false, e: 0 });
    expect(fields).toEqual({ b: 1, c: null, d: false, e: 0 });
    expect(Object.keys(fields)).toEqual(['b', 'c', 'd', 'e']);
    expect(JSON.stringify({ x: 1, ...definedFields({ y: 2, z: undefined }), w: 3 })).toBe('{"x":1,"y":2,"w":3}');
  });

  it('types a key that may be undefined as optional, without undefined', () => {
    const fields = definedFields({ kept: 1, maybe: undefined as string | undefined });
    expectTypeOf(fields.kept).toEqualTypeOf<number>();
    expectTypeOf(fields).toMatchTypeOf<{ kept: number; maybe?: string }>();
    // exactOptionalPropertyTypes: the result fits a type whose key is optional but never undefined.
    const exact: { kept: number; maybe?: string } = fields;
    expect(exact).toEqual({ kept: 1 });
  });
});
