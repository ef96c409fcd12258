import { existsSync } from 'node:fs';
import { chmod, mkdtemp, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { describe, expect, it } from 'vitest';
import { readReport, readSelection, readValidationEpoch } from '../../src/contract/read.js';
import { parseComputeApps, parseGpuMemory } from '../../src/workers/gpu-memory.js';
import { pythonStackUnavailable } from '../helpers/python-stack.js';

// Issue 26, item 6: scripts/gpu-check/run.sh runs the GPU path on a real card (a python-gate job
// on PyTorch, pinned by CUDA_VISIBLE_DEVICES, the memory guard's queries sampled while it
// allocates). Its output, once captured on a GPU machine, is committed as
// test/fixtures/nvidia-smi/real-gpu/ and checked here against the guard's parsing. Until then the
// script itself is run here without a GPU: a stand-in nvidia-smi, the job on numpy.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SCRIPT = path.join(ROOT, 'scripts', 'gpu-check', 'run.sh');
const CAPTURE = path.join(ROOT, 'test', 'fixtures', 'nvidia-smi', 'real-gpu');

interface Summary {
  readonly device: number;
  readonly ballast_gib: number;
  readonly steps: Record<
    'train' | 'evaluate',
    { pid: number | null; exit: number; gpu_lines: { total_mib: number; allocated_mib: number; pid: number }[] }
  >;
  readonly samples: { name: string; time: number; query_gpu: string | null; compute_apps: string | null }[];
}

const summaryOf = async (dir: string) => JSON.parse(await readFile(path.join(dir, 'summary.json'), 'utf8')) as Summary;

/** The contract files the job left, read as the loop reads them. */
async function expectContractFiles(run: string): Promise<void> {
  const selection = await readSelection(path.join(run, 'selection.json'));
  await readValidationEpoch(path.join(run, `validation-epoch-${String(selection.epoch).padStart(4, '0')}.json`));
  const report = await readReport(path.join(run, 'test-report.json'));
  expect(report.fail_count + report.pass_count).toBeGreaterThan(0);
}

describe('the GPU check script', () => {
  const unavailable = pythonStackUnavailable();

  it.skipIf(unavailable !== null)(
    'runs end to end without a GPU: a stand-in nvidia-smi, the job on numpy; every sample parses as the guard parses it',
    async () => {
      const dir = await mkdtemp(path.join(tmpdir(), 'gpu-check-'));
      const bin = path.join(dir, 'bin');
      await execa('mkdir', ['-p', bin]);
      // What the H200 of the fixtures answered, idle.
      await writeFile(
        path.join(bin, 'nvidia-smi'),
        '#!/bin/sh\ncase "$*" in\n  *query-gpu*) echo "0, 143771, 618, 143153";;\n  *compute-apps*) ;;\n  *) echo "stand-in nvidia-smi";;\nesac\n',
      );
      await chmod(path.join(bin, 'nvidia-smi'), 0o755);
      const out = path.join(dir, 'out');
      const result = await execa('bash', [SCRIPT], {
        cwd: ROOT,
        env: { PATH: `${bin}:${process.env.PATH ?? ''}`, OUT: out, GPU_CHECK_COMPUTE: 'cpu' },
        reject: false,
        timeout: 120_000,
      });
      expect(result.exitCode, result.stdout + result.stderr).toBe(0);
      const summary = await summaryOf(out);
      expect([summary.steps.train.exit, summary.steps.evaluate.exit]).toEqual([0, 0]);
      expect(summary.samples.map((sample) => sample.name)).toEqual(
        expect.arrayContaining(['idle', 'train-001', 'after']),
      );
      for (const sample of summary.samples) {
        expect(parseGpuMemory(sample.query_gpu ?? '')).toEqual([
          { index: 0, totalMiB: 143771, usedMiB: 618, freeMiB: 143153 },
        ]);
        expect(parseComputeApps(sample.compute_apps ?? '')).toEqual([]);
      }
      await expectContractFiles(path.join(out, 'run'));
    },
    180_000,
  );

  it('stops at once, saying why, on a machine without nvidia-smi', async () => {
    const result = await execa('bash', [SCRIPT], {
      cwd: ROOT,
      env: { PATH: '/usr/bin:/bin', OUT: await mkdtemp(path.join(tmpdir(), 'gpu-check-')) },
      reject: false,
    });
    expect(result.exitCode).toBe(2);
    expect(result.stdout).toContain('nvidia-smi not found: this script needs a machine with an NVIDIA GPU');
  });
});

describe.skipIf(!existsSync(path.join(CAPTURE, 'summary.json')))('the capture from a real GPU', () => {
  it("parses as the guard parses it, and nvidia-smi lists the trainer's process holding what PyTorch says it allocated", async () => {
    const summary = await summaryOf(CAPTURE);
    const train = summary.steps.train;
    expect(train.exit).toBe(0);
    const torchTotal = train.gpu_lines[0]?.total_mib ?? 0;
    let seen = 0;
    for (const sample of summary.samples) {
      const [memory] = parseGpuMemory(sample.query_gpu ?? '');
      expect(memory?.index).toBe(summary.device);
      // PyTorch and nvidia-smi count the same card (MiB either way, within 1%).
      expect(Math.abs((memory?.totalMiB ?? 0) - torchTotal) / torchTotal).toBeLessThan(0.01);
      const trainer = parseComputeApps(sample.compute_apps ?? '').find((process) => process.pid === train.pid);
      if (sample.name.startsWith('train-') && trainer !== undefined) {
        seen += 1;
        // The two queries are two nvidia-smi calls: a process allocating between them shows more
        // than the device's reading just before (the H200's train-010: its CUDA context, 14 MiB,
        // after the device said 4 MiB used). Once it holds its ballast, the device's used memory
        // includes what it holds.
        expect(trainer.usedMiB).toBeLessThanOrEqual(memory?.totalMiB ?? 0);
        if (trainer.usedMiB >= summary.ballast_gib * 1024)
          expect(trainer.usedMiB).toBeLessThanOrEqual(memory?.usedMiB ?? 0);
      }
    }
    // The ballast is held for the job's life: some samples caught it, at least what was allocated.
    expect(seen).toBeGreaterThan(0);
    const held = Math.max(...train.gpu_lines.map((line) => line.allocated_mib));
    expect(held).toBeGreaterThanOrEqual(summary.ballast_gib * 1024 * 0.99);
    await expectContractFiles(path.join(CAPTURE, 'run'));
  });

  it('pins the job to its device: CUDA_VISIBLE_DEVICES=N gives PyTorch one device, a missing index none', async () => {
    const pinned = JSON.parse(await readFile(path.join(CAPTURE, 'pinned.json'), 'utf8')) as { devices: number };
    const missing = JSON.parse(await readFile(path.join(CAPTURE, 'pinned-99.json'), 'utf8')) as { devices: number };
    expect([pinned.devices, missing.devices]).toEqual([1, 0]);
    expect(Number(await readFile(path.join(CAPTURE, 'query-gpu-99.exit'), 'utf8'))).not.toBe(0);
  });
});
