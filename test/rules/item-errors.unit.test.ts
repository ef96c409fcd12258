import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  decodeBits,
  encodeBits,
  fromBase64,
  itemErrorsOf,
  pairRecords,
  toBase64,
  type MarginRow,
} from '../../src/rules/item-errors.js';

const rowsOf = (margins: readonly [number, 0 | 1][]): MarginRow[] =>
  margins.map(([margin, target]) => ({ margin, target }));

describe('per-item error encoding', () => {
  it('writes the same base64 as Buffer and reads it back', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        const text = toBase64(bytes);
        expect(text).toBe(Buffer.from(bytes).toString('base64'));
        expect(fromBase64(text)).toEqual(bytes);
      }),
      { numRuns: 200 },
    );
  });

  it('round-trips a bitset of any length', () => {
    fc.assert(
      fc.property(fc.array(fc.boolean(), { maxLength: 2100 }), (flags) => {
        expect(decodeBits(encodeBits(flags), flags.length)).toEqual(flags);
      }),
      { numRuns: 100 },
    );
  });

  it('refuses a bitset of another length, and text that is not base64', () => {
    expect(() => decodeBits(encodeBits([true, false, true]), 9)).toThrow(/takes 2 bytes, not 1/);
    expect(() => fromBase64('ab$d')).toThrow(/not base64/);
    expect(() => fromBase64('abc')).toThrow(/multiple of 4/);
  });

  it('keeps 2,000 items in 336 characters, whatever the error rate', () => {
    // 600 fail items, 1,400 pass items: 75 + 175 bytes, 100 + 236 base64 characters.
    const rows: MarginRow[] = Array.from({ length: 2000 }, (_, i) => ({
      margin: (i * 7919) % 13 > 6 ? 1 : -1,
      target: i < 600 ? 0 : 1,
    }));
    const errors = itemErrorsOf('0123456789abcdef', rows, null);
    expect(errors.f2p.length + errors.p2f.length).toBe(336);
    expect(JSON.stringify(errors).length).toBeLessThan(450);
  });

  it('marks a fail item that got through and a pass item that was failed, plainly or after the band', () => {
    const rows = rowsOf([
      [0.5, 0], // fail passed: wrong; inside a band of [-0.6, 0.6]: rejected, not wrong
      [-0.5, 0], // fail failed: right
      [0.9, 0], // fail passed, above the band too: wrong both ways
      [0, 1], // pass at margin 0 is failed: wrong; inside the band: rejected
      [-0.9, 1], // pass failed, below the band: wrong both ways
    ]);
    const plain = itemErrorsOf('x', rows, null);
    expect(decodeBits(plain.f2p, 3)).toEqual([true, false, true]);
    expect(decodeBits(plain.p2f, 2)).toEqual([true, true]);
    expect(plain).toMatchObject({ block: 'result', fail_count: 3, pass_count: 2 });
    const banded = itemErrorsOf('x', rows, { low: -0.6, high: 0.6 });
    expect(decodeBits(banded.f2p, 3)).toEqual([false, false, true]);
    expect(decodeBits(banded.p2f, 2)).toEqual([false, true]);
    expect(banded.block).toBe('decided');
  });
});

describe('pairRecords', () => {
  const champion = itemErrorsOf(
    'same',
    rowsOf([
      [1, 0],
      [1, 0],
      [-1, 0],
      [-1, 1],
      [1, 1],
    ]),
    null,
  );
  const challenger = itemErrorsOf(
    'same',
    rowsOf([
      [1, 0],
      [-1, 0],
      [1, 0],
      [1, 1],
      [1, 1],
    ]),
    null,
  );

  it('counts the items one got wrong and the other right, per class', () => {
    expect(pairRecords(champion, challenger)).toEqual({
      ok: true,
      discordant: { f2p: { champion_only: 1, challenger_only: 1 }, p2f: { champion_only: 1, challenger_only: 0 } },
    });
  });

  it('says why two records cannot be paired', () => {
    expect(pairRecords(undefined, challenger)).toEqual({ ok: false, reason: 'the champion has no per-item record' });
    expect(pairRecords(champion, undefined)).toEqual({ ok: false, reason: 'the challenger has no per-item record' });
    expect(pairRecords(champion, { ...challenger, items: 'other' })).toEqual({
      ok: false,
      reason: 'different test items (same and other)',
    });
    expect(pairRecords(champion, { ...challenger, block: 'decided' })).toMatchObject({ ok: false });
  });
});
