import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hasRoom, parseGpuMemory, readGpuMemory } from '../../src/workers/gpu-memory.js';
import { tempDir } from '../helpers/files-and-errors.js';

const fixtures = fileURLToPath(new URL('../fixtures/nvidia-smi/', import.meta.url));

/** A stand-in nvidia-smi that prints a captured output and exits with a given code. */
async function fakeNvidiaSmi(stdout: string, exitCode = 0): Promise<string> {
  const file = path.join(await tempDir(), 'nvidia-smi');
  await writeFile(file, `#!/bin/sh\ncat <<'OUT'\n${stdout}\nOUT\nexit ${exitCode}\n`);
  await chmod(file, 0o755);
  return file;
}

describe('parseGpuMemory', () => {
  it('reads the query output captured on an idle H200', async () => {
    const csv = await readFile(path.join(fixtures, 'query-gpu-noheader.csv'), 'utf8');
    expect(parseGpuMemory(csv)).toEqual([{ index: 0, totalMiB: 143771, usedMiB: 0, freeMiB: 143156 }]);
  });

  it('sees the memory a 20 GiB torch allocation took', async () => {
    const capture = await readFile(path.join(fixtures, 'torch-alloc.txt'), 'utf8');
    const [before, after] = [...capture.matchAll(/^(?:before|after 20 GiB): (.*)$/gm)].map(
      (match) => parseGpuMemory(match[1] ?? '')[0],
    );
    expect(before?.freeMiB).toBe(143153);
    expect(after?.freeMiB).toBe(122150);
    expect(hasRoom({ kind: 'gpu', memory: after! }, 119)).toBe(true);
    expect(hasRoom({ kind: 'gpu', memory: after! }, 120)).toBe(false);
  });

  it('refuses output with units or a header rather than misreading it', async () => {
    const withUnits = await readFile(path.join(fixtures, 'query-gpu.csv'), 'utf8');
    expect(() => parseGpuMemory(withUnits)).toThrow(/unexpected nvidia-smi line/);
  });
});

describe('readGpuMemory', () => {
  it('reads one device through nvidia-smi', async () => {
    const smi = await fakeNvidiaSmi((await readFile(path.join(fixtures, 'query-gpu-noheader.csv'), 'utf8')).trim());
    expect(await readGpuMemory(0, smi)).toEqual({
      kind: 'gpu',
      memory: { index: 0, totalMiB: 143771, usedMiB: 0, freeMiB: 143156 },
    });
  });

  it('treats a machine without nvidia-smi as having no GPU, which admits by slots alone', async () => {
    const reading = await readGpuMemory(0, '/nonexistent/nvidia-smi');
    expect(reading.kind).toBe('no-gpu');
    expect(hasRoom(reading, 30)).toBe(true);
  });

  it('treats a device nvidia-smi does not know as an error that admits nothing', async () => {
    // pinning.txt: `nvidia-smi -i 3` on a one-GPU machine answers "No devices were found", exit 6.
    const smi = await fakeNvidiaSmi('No devices were found', 6);
    const reading = await readGpuMemory(3, smi);
    expect(reading).toEqual({ kind: 'error', reason: expect.stringContaining('No devices were found') as unknown });
    expect(hasRoom(reading, 0)).toBe(false);
  });
});
