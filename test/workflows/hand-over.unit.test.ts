import { describe, expect, it } from 'vitest';
import { maxRunEvents } from '../../src/workflows/generation/hand-over.js';

describe('the history events at which a generation run continues as new', () => {
  it('is 32 per job slot, at least 500, unless loop.yaml max_run_events says otherwise', () => {
    expect(maxRunEvents({ parallel: 1 })).toBe(500);
    expect(maxRunEvents({ parallel: 5 })).toBe(500);
    expect(maxRunEvents({ parallel: 16 })).toBe(512);
    expect(maxRunEvents({ parallel: 64 })).toBe(2048);
    expect(maxRunEvents({ parallel: 64, max_run_events: 60 })).toBe(60);
  });
});
