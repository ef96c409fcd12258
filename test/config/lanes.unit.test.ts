import { describe, expect, it } from 'vitest';
import { laneQueue } from '../../src/config/lanes.js';

describe('laneQueue', () => {
  it('names a lane after its host and device', () => {
    expect(laneQueue('gpu-a', 0)).toBe('champion-loop.gpu-a.gpu0');
    expect(laneQueue('gpu-b.lab', 3)).toBe('champion-loop.gpu-b.lab.gpu3');
  });

  it('takes a loop-specific prefix when one is given', () => {
    expect(laneQueue('nightly', 'gpu-a', 1)).toBe('nightly.gpu-a.gpu1');
  });

  it('falls back to the default prefix when the prefix is undefined', () => {
    expect(laneQueue(undefined, 'gpu-a', 1)).toBe('champion-loop.gpu-a.gpu1');
  });
});
