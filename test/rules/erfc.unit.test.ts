import { describe, it, expect } from 'vitest';
import fc from 'fast-check';
import erfc from '@stdlib/math-base-special-erfc';

const expectRelative = (actual: number, expected: number, tolerance: number): void => {
  expect(Math.abs(actual - expected) / Math.abs(expected), `${actual} vs ${expected}`).toBeLessThan(tolerance);
};

// The z-test's erfc comes from @stdlib/math-base-special-erfc; these pin it to the accuracy the
// reserve check was written against. Reference values: float(mpmath.erfc(x)) at 40 digits
// (mpmath 1.3.0, python3 3.11.7); 0.4999 and 0.5001 straddle where a series and a tail
// expansion usually meet.
const known: readonly (readonly [number, number])[] = [
  [-3, 1.9999779095030015],
  [-1.5, 1.9661051464753108],
  [-1, 1.842700792949715],
  [-0.3, 1.3286267594591274],
  [0, 1],
  [1e-17, 1],
  [0.1, 0.887537083981715],
  [0.25, 0.7236736098317631],
  [0.4999, 0.4795880048386134],
  [0.5, 0.4795001221869535],
  [0.5001, 0.4794122483231193],
  [0.75, 0.28884436634648486],
  [1, 0.15729920705028513],
  [1.5, 0.033894853524689274],
  [2, 0.004677734981047266],
  [2.5, 0.0004069520174449589],
  [3, 2.209049699858544e-5],
  [4, 1.541725790028002e-8],
  [5, 1.537459794428035e-12],
  [6.28, 6.610653977656803e-19],
  [7.5, 2.776649386030569e-26],
  [10, 2.088487583762545e-45],
  [13.3, 6.368006404723223e-79],
  [15.3, 7.9765601254207e-104],
  [18.1, 1.6363302545431604e-144],
  [21.87, 4.891241190104707e-210],
  [22.97, 1.7660706491674512e-231],
  [26, 5.663192408856143e-296],
];

describe('erfc', () => {
  it('is exactly 1 at 0', () => {
    expect(erfc(0)).toBe(1);
  });

  it('matches reference values to 1e-15 relative, deep tail included', () => {
    for (const [x, expected] of known) {
      expectRelative(erfc(x), expected, 1e-15);
    }
  });

  it('goes to 0 and 2 at the infinities and stays NaN for NaN', () => {
    expect(erfc(Number.POSITIVE_INFINITY)).toBe(0);
    expect(erfc(Number.NEGATIVE_INFINITY)).toBe(2);
    expect(erfc(40)).toBe(0);
    expect(erfc(Number.NaN)).toBeNaN();
  });

  it('satisfies erfc(x) + erfc(-x) = 2', () => {
    fc.assert(
      fc.property(fc.double({ min: -30, max: 30, noNaN: true }), (x) => {
        expect(Math.abs(erfc(x) + erfc(-x) - 2)).toBeLessThan(4e-16);
      }),
    );
  });

  it('decreases', () => {
    fc.assert(
      fc.property(
        fc.double({ min: -10, max: 10, noNaN: true }),
        fc.double({ min: -10, max: 10, noNaN: true }),
        (a, b) => {
          const [low, high] = a < b ? [a, b] : [b, a];
          expect(erfc(low)).toBeGreaterThanOrEqual(erfc(high));
        },
      ),
    );
  });
});
