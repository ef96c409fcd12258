import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dirsToEvict, isCacheFile, type CachedRunDir } from '../../src/artifacts/cache-policy.js';

const dir = (name: string, bytes: number, usedAt: number, held = false): CachedRunDir => ({
  dir: name,
  bytes,
  usedAt,
  held,
});

describe('dirsToEvict', () => {
  it('keeps the most recently used that fit and deletes the rest, oldest included', () => {
    const entries = [dir('old', 10, 1), dir('new', 40, 3), dir('mid', 40, 2)];
    expect(dirsToEvict(entries, 100)).toEqual([]);
    expect(dirsToEvict(entries, 90)).toEqual([]);
    expect(dirsToEvict(entries, 85)).toEqual(['old']);
    expect(dirsToEvict(entries, 50)).toEqual(['mid', 'old']);
    expect(dirsToEvict(entries, 0)).toEqual(['new', 'mid', 'old']);
  });

  it('never deletes a held directory, and counts it first', () => {
    const entries = [dir('held', 80, 0, true), dir('new', 30, 5)];
    expect(dirsToEvict(entries, 100)).toEqual(['new']);
    expect(dirsToEvict([dir('held', 500, 0, true)], 0)).toEqual([]);
  });

  it('over any directories: held ones stay, what stays fits unless held ones alone do not, and every kept one is newer than every deleted one', () => {
    const entry = fc.record({
      bytes: fc.nat(1000),
      usedAt: fc.nat(50),
      held: fc.boolean(),
    });
    fc.assert(
      fc.property(fc.array(entry, { maxLength: 12 }), fc.nat(3000), (raw, keep) => {
        const entries = raw.map((fields, index) => dir(`d${index}`, fields.bytes, fields.usedAt, fields.held));
        const evicted = new Set(dirsToEvict(entries, keep));
        const kept = entries.filter((entry) => !evicted.has(entry.dir));
        expect(entries.filter((entry) => entry.held).every((entry) => !evicted.has(entry.dir))).toBe(true);
        const heldBytes = entries.filter((entry) => entry.held).reduce((sum, entry) => sum + entry.bytes, 0);
        const keptBytes = kept.reduce((sum, entry) => sum + entry.bytes, 0);
        expect(keptBytes <= Math.max(keep, heldBytes)).toBe(true);
        const newestDeleted = Math.max(-1, ...entries.filter((entry) => evicted.has(entry.dir)).map((e) => e.usedAt));
        for (const entry of kept.filter((e) => !e.held)) expect(entry.usedAt).toBeGreaterThanOrEqual(newestDeleted);
      }),
    );
  });
});

describe('isCacheFile', () => {
  it("tells the cache's marker and holds from a run's own files", () => {
    expect(isCacheFile('.in-store.json')).toBe(true);
    expect(isCacheFile('.in-store.json.123.abc')).toBe(true);
    expect(isCacheFile('.in-use-123-abc')).toBe(true);
    expect(isCacheFile('checkpoint-0001.pt')).toBe(false);
    expect(isCacheFile('selection.json')).toBe(false);
  });
});
