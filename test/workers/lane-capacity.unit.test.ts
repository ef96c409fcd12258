import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseLoopConfig } from '../../src/config/loop-config.js';
import { parseGpuMemory } from '../../src/workers/gpu-memory.js';
import { admissionLine, laneCapacity } from '../../src/workers/lane-capacity.js';

// Issue 26: loop.yaml's `slots` and `min_free_gib` set a lane's capacity; flags that disagree are refused.

const config = parseLoopConfig(
  [
    'data_root: data',
    'candidates: candidates.yaml',
    'min_free_gib: 30',
    'lanes:',
    '  - {host: gpu-a, device: 0, slots: 3}',
    '  - {host: gpu-a, device: 1, slots: 2, min_free_gib: 40, kill_grace: 2m, overtaking: 64}',
  ].join('\n'),
  'loop.yaml',
);
const laneOf = (host: string, device: number) => ({ config, file: 'loop.yaml', host, device });

describe('a lane capacity', () => {
  it("comes from the lane's loop.yaml entry, the loop's min_free_gib where the lane has none", () => {
    expect(laneCapacity({}, laneOf('gpu-a', 0))).toEqual({
      slots: 3,
      minFreeGiB: 30,
      killGraceMs: 25_000,
      overtaking: 0,
      source: 'loop.yaml lanes[0] (host gpu-a, device 0)',
    });
    expect(
      laneCapacity({ slots: 2, minFreeGiB: 40, killGrace: '120s', overtaking: 64 }, laneOf('gpu-a', 1)),
    ).toMatchObject({
      slots: 2,
      minFreeGiB: 40,
      killGraceMs: 120_000,
      overtaking: 64,
    });
  });

  it('refuses flags that disagree with loop.yaml, naming both values', () => {
    expect(() => laneCapacity({ slots: 4 }, laneOf('gpu-a', 0))).toThrow(
      "the worker's flags disagree with loop.yaml lanes[0] (host gpu-a, device 0): --slots 4 but slots 3.",
    );
    expect(() => laneCapacity({ slots: 2, minFreeGiB: 30 }, laneOf('gpu-a', 1))).toThrow(
      '--min-free-gib 30 but min_free_gib 40',
    );
    expect(() => laneCapacity({ killGrace: '30s' }, laneOf('gpu-a', 0))).toThrow(
      '--kill-grace 30s but kill_grace 25s (its default)',
    );
    expect(() => laneCapacity({ overtaking: 8 }, laneOf('gpu-a', 1))).toThrow('--overtaking 8 but overtaking 64');
    expect(() => laneCapacity({ overtaking: 8 }, laneOf('gpu-a', 0))).toThrow(
      '--overtaking 8 but overtaking 0 (its default)',
    );
  });

  it('refuses a host and device loop.yaml does not list, saying which it lists', () => {
    expect(() => laneCapacity({}, laneOf('gpu-b', 0))).toThrow(
      'loop.yaml lists no lane with host gpu-b and device 0 (it lists gpu-a/0, gpu-a/1)',
    );
  });

  it("without loop.yaml, is the flags' or the defaults (1 job, 30 GiB, 25 s kill grace)", () => {
    expect(laneCapacity({}, null)).toEqual({
      slots: 1,
      minFreeGiB: 30,
      killGraceMs: 25_000,
      overtaking: 0,
      source: 'defaults',
    });
    expect(laneCapacity({ minFreeGiB: 0, killGrace: '2m', overtaking: 4 }, null)).toEqual({
      slots: 1,
      minFreeGiB: 0,
      killGraceMs: 120_000,
      overtaking: 4,
      source: 'flags',
    });
  });
});

describe('the line a lane says at start', () => {
  const capacity = {
    slots: 3,
    minFreeGiB: 30,
    killGraceMs: 25_000,
    overtaking: 0,
    source: 'loop.yaml lanes[0] (host gpu-a, device 0)',
  };
  const queue = 'champion-loop.gpu-a.gpu0';

  it("reads an H200's first reading (captured output) and says how it admits", async () => {
    const csv = await readFile(
      fileURLToPath(new URL('../fixtures/nvidia-smi/query-gpu-noheader.csv', import.meta.url)),
      'utf8',
    );
    const memory = parseGpuMemory(csv)[0]!;
    expect(admissionLine(queue, capacity, { kind: 'gpu', memory })).toBe(
      'GPU lane champion-loop.gpu-a.gpu0: device 0 has 139.8 of 140.4 GiB free; it takes a job while 30 GiB is free beyond what its running jobs hold, up to 3 jobs at once (capacity from loop.yaml lanes[0] (host gpu-a, device 0))',
    );
  });

  it('says how many later steps may start before a waiting one, when the lane lets any', async () => {
    const csv = await readFile(
      fileURLToPath(new URL('../fixtures/nvidia-smi/query-gpu-noheader.csv', import.meta.url)),
      'utf8',
    );
    const memory = parseGpuMemory(csv)[0]!;
    expect(admissionLine(queue, { ...capacity, overtaking: 64 }, { kind: 'gpu', memory })).toContain(
      'up to 3 jobs at once; up to 64 later steps may start before one that waits for memory (capacity from',
    );
  });

  it('says a GPU lane without nvidia-smi has no memory guard and admits by slots alone', () => {
    const line = admissionLine(queue, capacity, { kind: 'no-gpu', reason: 'nvidia-smi not found' });
    expect(line).toContain('nvidia-smi not found: no memory guard, it admits by slots alone, up to 3 jobs at once');
    expect(line).toContain('start it with --cpu');
  });

  it('says a lane that cannot read its device takes nothing, and a CPU lane that it has no guard', () => {
    expect(
      admissionLine(queue, capacity, { kind: 'error', reason: 'nvidia-smi -i 0 exit 6: No devices were found' }),
    ).toContain(
      "cannot read its device's memory (nvidia-smi -i 0 exit 6: No devices were found): it takes no job until it can",
    );
    expect(admissionLine(queue, { ...capacity, slots: 1 }, null)).toBe(
      'CPU lane champion-loop.gpu-a.gpu0: no GPU, no memory guard: up to 1 job at once (capacity from loop.yaml lanes[0] (host gpu-a, device 0))',
    );
  });
});
