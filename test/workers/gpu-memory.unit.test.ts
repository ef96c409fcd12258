import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { hasRoom, parseComputeApps, parseGpuMemory, readGpuMemory } from '../../src/workers/gpu-memory.js';
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

describe('parseComputeApps', () => {
  it("reads the processes on the device and what each holds (torch-alloc.txt's process, as the guard queries it)", async () => {
    // torch-alloc.txt was captured with a header and units: `425, python3, 20998 MiB`.
    const capture = await readFile(path.join(fixtures, 'torch-alloc.txt'), 'utf8');
    const [, pid, mib] = /^(\d+), python3, (\d+) MiB$/m.exec(capture) ?? [];
    expect(parseComputeApps(`${pid}, ${mib}\n`)).toEqual([{ pid: 425, usedMiB: 20998 }]);
    expect(parseComputeApps('425, 20998\n731, 1024\n')).toEqual([
      { pid: 425, usedMiB: 20998 },
      { pid: 731, usedMiB: 1024 },
    ]);
  });

  it('reads no processes from empty output, and leaves out one whose memory nvidia-smi cannot say', () => {
    expect(parseComputeApps('')).toEqual([]);
    expect(parseComputeApps('425, [N/A]\n731, 1024\n')).toEqual([{ pid: 731, usedMiB: 1024 }]);
  });

  it('refuses output it does not know rather than misreading it', () => {
    expect(() => parseComputeApps('425, python3, 20998 MiB')).toThrow(/unexpected nvidia-smi line/);
    expect(() => parseComputeApps('pid, used_memory [MiB]')).toThrow(/unexpected nvidia-smi line/);
  });
});

describe('readGpuMemory with the processes on the device', () => {
  it('reads the device and, with a second query, its processes', async () => {
    const file = path.join(await tempDir(), 'nvidia-smi');
    await writeFile(
      file,
      '#!/bin/sh\ncase "$1" in\n  --query-compute-apps=*) echo "425, 20998" ;;\n  *) echo "0, 143771, 21007, 122150" ;;\nesac\n',
    );
    await chmod(file, 0o755);
    expect(await readGpuMemory(0, file)).toEqual({
      kind: 'gpu',
      memory: { index: 0, totalMiB: 143771, usedMiB: 21007, freeMiB: 122150 },
      processes: [{ pid: 425, usedMiB: 20998 }],
    });
  });

  it('reads the device alone when nvidia-smi cannot list its processes (nothing is attributed then)', async () => {
    const smi = await fakeNvidiaSmi('0, 143771, 0, 143156');
    const reading = await readGpuMemory(0, smi);
    expect(reading).toEqual({ kind: 'gpu', memory: { index: 0, totalMiB: 143771, usedMiB: 0, freeMiB: 143156 } });
    expect(reading.kind === 'gpu' && 'processes' in reading).toBe(false);
  });
});
