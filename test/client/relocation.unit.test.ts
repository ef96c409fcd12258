import { describe, expect, it } from 'vitest';
import { relocated } from '../../src/client/relocation.js';

describe('paths moved with a relocated folder', () => {
  const moves = [
    { field: 'state_dir' as const, from: '/data/state', to: '/big/state' },
    { field: 'runs_root' as const, from: '/data/runs', to: '/big/runs' },
  ];

  it('moves every path under a moved folder, in any depth of the carry, and nothing else', () => {
    const carry = {
      split: '/data/state/splits/gen-001.yaml',
      state: { champion: { checkpoint: '/data/runs/r1/checkpoint-0002.pt', epoch: 2 } },
      queue: [{ config: '/data/state', note: 'see /data/state/logs' }],
      other: '/data/state2/x',
      count: 3,
      none: null,
    };
    expect(relocated(carry, moves)).toEqual({
      split: '/big/state/splits/gen-001.yaml',
      state: { champion: { checkpoint: '/big/runs/r1/checkpoint-0002.pt', epoch: 2 } },
      queue: [{ config: '/big/state', note: 'see /data/state/logs' }],
      other: '/data/state2/x',
      count: 3,
      none: null,
    });
  });
});
