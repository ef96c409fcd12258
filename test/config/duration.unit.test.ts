import { describe, expect, it } from 'vitest';
import { durationMs, isDuration } from '../../src/config/duration.js';

describe('durationMs', () => {
  it('reads every unit the loop accepts', () => {
    expect(durationMs('500ms')).toBe(500);
    expect(durationMs('90s')).toBe(90_000);
    expect(durationMs('10m')).toBe(600_000);
    expect(durationMs('24h')).toBe(86_400_000);
    expect(durationMs('2d')).toBe(172_800_000);
  });

  it('refuses a bare number, a fraction, zero, spaces and unknown units', () => {
    for (const text of ['90', '1.5h', '0s', '10 m', '2w', 'h', '', '-5s', '10M']) {
      expect(() => durationMs(text), text).toThrow(/is not a duration like/);
      expect(isDuration(text), text).toBe(false);
    }
  });

  it('knows a duration only when it is a string', () => {
    expect(isDuration('90s')).toBe(true);
    expect(isDuration(90)).toBe(false);
  });
});
