import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { outOfMemory } from '../../src/rules/out-of-memory.js';

// What a step's output says when it ran out of GPU memory: the frameworks' own words, from real logs.

describe('outOfMemory', () => {
  it("reads PyTorch's CUDA out-of-memory from a real H200 log, with what the allocation asked for", () => {
    const log = readFileSync('test/fixtures/sim-gpu/torch-oom.txt', 'utf8');
    const oom = outOfMemory(log);
    expect(oom?.askedMiB).toBe(45 * 1024);
    expect(oom?.line).toMatch(/^torch\.OutOfMemoryError: CUDA out of memory\./);
  });

  it("reads JAX's RESOURCE_EXHAUSTED in bytes, CUDA's own error without a size, and a stack's marker", () => {
    expect(
      outOfMemory(
        'jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Out of memory while trying to allocate 48318382080 bytes.',
      ),
    ).toMatchObject({ askedMiB: 46080 });
    expect(outOfMemory('error: CUDA_ERROR_OUT_OF_MEMORY: out of memory')).toMatchObject({ askedMiB: null });
    expect(outOfMemory('epoch 1\nGATE: no room on the card\n', 'GATE: no room')).toMatchObject({
      line: 'GATE: no room on the card',
    });
  });

  it('is null for output that does not say so', () => {
    expect(outOfMemory('epoch 1 loss 0.3\nTraceback ...\nValueError: bad config\n')).toBeNull();
    expect(outOfMemory('no eligible checkpoint', 'GATE: no room')).toBeNull();
    expect(outOfMemory('')).toBeNull();
  });
});
