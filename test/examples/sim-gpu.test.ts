// The simulated card (examples/python-gate/pygate/simgpu.py and sim-bin/nvidia-smi): one pool of
// GPU memory on this machine, in a file under lock, that `device: sim` jobs allocate from and a
// stand-in nvidia-smi reads. Checked here as the lane sees it (the project's own nvidia-smi parsers
// and reader) and as a job sees it (allocations that add up, a dead process's memory freed, PyTorch's
// OOM text and exit past the card's free memory or past CHAMPION_LOOP_GPU_MEMORY_MIB).
import { execa, type ResultPromise } from 'execa';
import { readFileSync } from 'node:fs';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseComputeApps, parseGpuMemory, readGpuMemory } from '../../src/workers/gpu-memory.js';
import { pythonStackUnavailable } from '../helpers/python-stack.js';

const STACK = fileURLToPath(new URL('../../examples/python-gate/', import.meta.url));
const FIXTURES = fileURLToPath(new URL('../fixtures/', import.meta.url));
const QUERY_GPU = ['--query-gpu=index,memory.total,memory.used,memory.free', '--format=csv,noheader,nounits'];
const QUERY_APPS = ['--query-compute-apps=pid,used_memory', '--format=csv,noheader,nounits'];
const H200 = 143_771;
/** What a real H200 keeps from every process: PyTorch sees 143,156 MiB (139.80 GiB) of 143,771. */
const RESERVED = 615;
const unavailable = pythonStackUnavailable();

/** A line of PyTorch's OOM with its numbers and other processes taken out: what the real one and ours share. */
const shapeOf = (line: string) =>
  line.replace(/\d+(\.\d+)? (GiB|MiB|KiB|bytes)/g, 'N U').replace(/Process \d+ has N U memory in use\. /g, '');
/** The last line a real H200's PyTorch printed for a CUDA OOM: test/fixtures/sim-gpu/ (uncapped, capped). */
const realOom = (name: 'torch-oom' | 'torch-oom-capped') =>
  readFileSync(join(FIXTURES, 'sim-gpu', `${name}.txt`), 'utf8').trim();

describe.skipIf(unavailable !== null)('the simulated card', () => {
  let dir = '';
  let stack = '';
  let split = '';
  let nvidiaSmi = '';

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sim-gpu-'));
    stack = join(dir, 'python-gate');
    await cp(STACK, stack, { recursive: true, filter: (source) => !/\/(artifacts|__pycache__)(\/|$)/.test(source) });
    nvidiaSmi = join(stack, 'sim-bin', 'nvidia-smi');
    const py = (module: string, args: readonly string[]) => execa('python3', ['-m', module, ...args], { cwd: stack });
    await py('pygate.split_generate', [
      ...['--data-root', 'data', '--output', join(dir, 'devval.yaml'), '--seed', '5', '--validation-fraction', '0.1'],
    ]);
    await py('pygate.split_carve', [
      ...['--split', join(dir, 'devval.yaml'), '--output', join(dir, 'split.yaml')],
      ...['--role', 'test', '--test-fraction', '0.1', '--seed', '5'],
    ]);
    split = join(dir, 'split.yaml');
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  /** A new card at its own path: `init`'s arguments, the pool file. */
  async function card(name: string, args: readonly string[] = []): Promise<string> {
    const path = join(dir, `${name}.card.json`);
    await execa('python3', ['-m', 'pygate.simgpu', 'init', '--path', path, ...args], { cwd: stack });
    return path;
  }

  /** The stand-in nvidia-smi with `args`, reading the card at `pool`, as the lane runs it (on PATH). */
  function smi(pool: string, args: readonly string[]) {
    return execa('nvidia-smi', args, {
      reject: false,
      env: { CHAMPION_LOOP_SIM_GPU: pool, PATH: `${join(stack, 'sim-bin')}:${process.env.PATH ?? ''}` },
    });
  }

  const memoryOf = async (pool: string) => parseGpuMemory((await smi(pool, [...QUERY_GPU, '-i', '0'])).stdout);
  const appsOf = async (pool: string) => parseComputeApps((await smi(pool, [...QUERY_APPS, '-i', '0'])).stdout);

  /**
   * A process outside the loop holding `gib` on the card for `seconds`, once the card lists it (in
   * an object: an async function returning the process itself would wait for it to end).
   */
  async function hog(pool: string, gib: number, seconds: number): Promise<{ pid: number; run: ResultPromise }> {
    const run = execa('python3', ['-m', 'pygate.simgpu', 'hog', '--gib', String(gib), '--seconds', String(seconds)], {
      cwd: stack,
      reject: false,
      env: { CHAMPION_LOOP_SIM_GPU: pool },
    });
    await expect
      .poll(async () => (await appsOf(pool)).some((app) => app.pid === run.pid), { timeout: 20_000, interval: 100 })
      .toBe(true);
    return { pid: run.pid ?? 0, run };
  }

  /** A job config as the loop writes one: the base config with `values` over it, then split and seed. */
  async function config(name: string, values: Record<string, string | number> = {}): Promise<string> {
    const path = join(dir, `${name}.yaml`);
    const base = (await readFile(join(stack, 'configs', 'base.yaml'), 'utf8'))
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#') && !((line.split(':')[0] ?? '') in values));
    const extra = Object.entries(values).map(([key, value]) => `${key}: ${value}`);
    await writeFile(path, [...base, ...extra, `split: ${split}`, 'seed: 7', ''].join('\n'));
    return path;
  }

  function step(module: string, args: readonly string[], env: Record<string, string>) {
    return execa('python3', ['-m', `pygate.${module}`, ...args], { cwd: stack, reject: false, env });
  }

  const train = (pool: string, configPath: string, id: string, env: Record<string, string> = {}) =>
    step('train', ['--config', configPath, '--output-root', join(dir, 'runs'), '--run-id', id], {
      CHAMPION_LOOP_SIM_GPU: pool,
      ...env,
    });

  /** The `gpu {...}` lines a step printed. */
  const gpuLines = (stdout: string) =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('gpu {'))
      .map(
        (line) => JSON.parse(line.slice(4)) as { when: string; pid: number; allocated_mib: number; free_mib: number },
      );

  it("answers the lane's two queries and plain nvidia-smi / -L as a real H200 does, idle", async () => {
    const pool = await card('idle', ['--total-mib', String(H200), '--reserved-mib', String(RESERVED)]);
    const query = await smi(pool, [...QUERY_GPU, '-i', '0']);
    // Byte for byte what the real card answered idle (test/fixtures/nvidia-smi/query-gpu-noheader.csv).
    expect(query.stdout + '\n').toBe(readFileSync(join(FIXTURES, 'nvidia-smi', 'query-gpu-noheader.csv'), 'utf8'));
    expect(parseGpuMemory(query.stdout)).toEqual([{ index: 0, totalMiB: H200, usedMiB: 0, freeMiB: H200 - RESERVED }]);
    const apps = await smi(pool, [...QUERY_APPS, '-i', '0']);
    expect([apps.exitCode, apps.stdout]).toEqual([0, '']);
    // The table: the real one's lines but the clock's, the temperature's and the power's.
    const real = readFileSync(join(FIXTURES, 'nvidia-smi', 'nvidia-smi.txt'), 'utf8').split('\n');
    const table = (await smi(pool, [])).stdout.split('\n');
    expect(table).toHaveLength(real.length - 1);
    for (const [i, line] of table.entries()) {
      if (i === 0) expect(line).toMatch(/^\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} {7}$/);
      else expect(line.replace(/\d+C {4}P0 +\d+W/, 'T')).toBe(real[i]?.replace(/\d+C {4}P0 +\d+W/, 'T'));
    }
    expect((await smi(pool, ['-L'])).stdout).toMatch(/^GPU 0: NVIDIA H200 \(UUID: GPU-[0-9a-f-]+\)$/);
    // As the real one (test/fixtures/nvidia-smi/pinning.txt): a device it lacks, exit 6.
    const other = await smi(pool, [...QUERY_GPU, '-i', '3']);
    expect([other.exitCode, other.stdout]).toEqual([6, 'No devices were found']);
    // No card at all: the driver's error, never a card with nothing on it.
    const none = await smi(join(dir, 'no-such-card.json'), QUERY_GPU);
    expect(none.exitCode).toBe(9);
    expect(none.stdout).toContain("couldn't communicate with the NVIDIA driver");
  });

  it("is read by the lane's own readGpuMemory: used is what live processes hold, free the rest, each pid listed", async () => {
    const pool = await card('lane', ['--reserved-mib', String(RESERVED)]);
    const big = await hog(pool, 30, 60);
    const small = await hog(pool, 10, 60);
    const saved = process.env.CHAMPION_LOOP_SIM_GPU;
    process.env.CHAMPION_LOOP_SIM_GPU = pool;
    try {
      const reading = await readGpuMemory(0, nvidiaSmi);
      expect(reading).toEqual({
        kind: 'gpu',
        memory: { index: 0, totalMiB: H200, usedMiB: 40 * 1024, freeMiB: H200 - RESERVED - 40 * 1024 },
        processes: [
          { pid: big.pid, usedMiB: 30 * 1024 },
          { pid: small.pid, usedMiB: 10 * 1024 },
        ],
      });
      expect(await readGpuMemory(1, nvidiaSmi)).toMatchObject({ kind: 'error' });
    } finally {
      if (saved === undefined) delete process.env.CHAMPION_LOOP_SIM_GPU;
      else process.env.CHAMPION_LOOP_SIM_GPU = saved;
      big.run.kill('SIGKILL');
      small.run.kill('SIGKILL');
      await Promise.all([big.run, small.run]);
    }
    // Both died of SIGKILL, freeing nothing themselves: the card frees a dead process's memory.
    expect(await memoryOf(pool)).toEqual([{ index: 0, totalMiB: H200, usedMiB: 0, freeMiB: H200 - RESERVED }]);
    expect(await appsOf(pool)).toEqual([]);
  });

  it('drops the entry of a pid that no longer lives on the next read, and writes the pool back without it', async () => {
    const pool = await card('dead');
    const gone = execa('python3', ['-c', 'pass']);
    await gone;
    const file = JSON.parse(await readFile(pool, 'utf8')) as {
      devices: { processes: object[] }[];
    };
    file.devices[0]?.processes.push(
      { pid: gone.pid, start: 0, name: 'python3', context_mib: 0, allocated_mib: 20_000 },
      // A live pid whose start time is not this process's: the pid was reused, its memory is gone.
      { pid: process.pid, start: 1, name: 'node', context_mib: 0, allocated_mib: 1_000 },
    );
    await writeFile(pool, JSON.stringify(file));
    expect(await appsOf(pool)).toEqual([]);
    expect((JSON.parse(await readFile(pool, 'utf8')) as typeof file).devices[0]?.processes).toEqual([]);
  });

  it('holds what a hog asks for as long as it says, then frees it and exits 0', async () => {
    const pool = await card('hog', ['--reserved-mib', String(RESERVED)]);
    const started = Date.now();
    const { run } = await hog(pool, 80, 3);
    expect(await memoryOf(pool)).toEqual([
      { index: 0, totalMiB: H200, usedMiB: 81_920, freeMiB: H200 - RESERVED - 81_920 },
    ]);
    const result = await run;
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000);
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toMatch(/^hog holds 80\.0 GiB/);
    expect(await memoryOf(pool)).toEqual([{ index: 0, totalMiB: H200, usedMiB: 0, freeMiB: H200 - RESERVED }]);
  });

  it("trains on device: sim holding gpu_ballast_gib under the trainer's pid, the same model as on cpu, and frees it at exit", async () => {
    const pool = await card('train');
    const cpu = await train(pool, await config('cpu'), 'on-cpu');
    expect(cpu.exitCode).toBe(0);
    expect(cpu.stdout.split('\n')[0]).toMatch(/^device: cpu \(numpy\); CUDA_VISIBLE_DEVICES=unset; /);
    const running = train(
      pool,
      await config('sim', { device: 'sim', gpu_ballast_gib: 12, epoch_sleep_s: 0.5 }),
      'on-sim',
    );
    await expect
      .poll(() => appsOf(pool), { timeout: 30_000, interval: 100 })
      .toEqual([{ pid: running.pid, usedMiB: 12 * 1024 }]);
    const sim = await running;
    expect(sim.stderr).toBe('');
    expect(sim.exitCode).toBe(0);
    expect(sim.stdout.split('\n')[0]).toBe(`device: sim (numpy, simulated card ${pool}); CUDA_VISIBLE_DEVICES=unset`);
    expect(gpuLines(sim.stdout).map((line) => [line.when, line.pid, line.allocated_mib])).toEqual([
      ['start', running.pid, 12_288],
      ...[1, 2, 3, 4].map((epoch) => [`epoch ${epoch}`, running.pid, 12_288]),
    ]);
    for (const epoch of [1, 2, 3, 4]) {
      const checkpoint = (id: string) => {
        const { weights, bias } = JSON.parse(
          readFileSync(join(dir, 'runs', id, `checkpoint-000${epoch}.json`), 'utf8'),
        ) as { weights: number[]; bias: number };
        return { weights, bias };
      };
      expect(checkpoint('on-sim')).toEqual(checkpoint('on-cpu'));
    }
    expect(await appsOf(pool)).toEqual([]);
    // Pinned as a lane pins it: a device the card lacks (or none, a --cpu lane) is refused in one line.
    const pinned = await train(pool, join(dir, 'sim.yaml'), 'pinned', { CUDA_VISIBLE_DEVICES: '3' });
    expect(pinned.exitCode).toBe(2);
    expect(pinned.stderr).toContain('device: sim, but the simulated card');
    const unset = await step(
      'train',
      ['--config', join(dir, 'sim.yaml'), '--output-root', join(dir, 'runs'), '--run-id', 'x'],
      {
        CHAMPION_LOOP_SIM_GPU: '',
      },
    );
    expect(unset.exitCode).toBe(2);
    expect(unset.stderr).toContain('CHAMPION_LOOP_SIM_GPU is not set');
  });

  it('fails an allocation past the free memory with the text PyTorch prints and exit 1, as the real H200 did', async () => {
    const pool = await card('oom', ['--reserved-mib', String(RESERVED)]);
    const outside = await hog(pool, 80, 60);
    try {
      const neighbour = train(
        pool,
        await config('neighbour', { device: 'sim', gpu_ballast_gib: 30, epoch_sleep_s: 30, epochs: 1 }),
        'neighbour',
      );
      await expect.poll(async () => (await appsOf(pool)).length, { timeout: 30_000, interval: 100 }).toBe(2);
      const strict = await train(pool, await config('strict', { device: 'sim', gpu_ballast_gib: 45 }), 'strict');
      neighbour.kill('SIGTERM');
      expect((await neighbour).signal).toBe('SIGTERM');
      expect(strict.exitCode).toBe(1);
      expect(strict.stderr).toMatch(/^Traceback \(most recent call last\):/);
      const last = strict.stderr.trim().split('\n').at(-1) ?? '';
      const free = (H200 - RESERVED - 81_920 - 30_720) / 1024;
      expect(last).toBe(
        `torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 45.00 GiB. GPU 0 has a total capacity of ` +
          `139.80 GiB of which ${free.toFixed(2)} GiB is free. Process ${outside.pid} has 80.00 GiB memory in use. ` +
          `Process ${neighbour.pid} has 30.00 GiB memory in use. Including non-PyTorch memory, this process has ` +
          '0 bytes memory in use. Of the allocated memory 0 bytes is allocated by PyTorch, and 0 bytes is reserved ' +
          'by PyTorch but unallocated. If reserved but unallocated memory is large try setting ' +
          'PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See documentation for Memory ' +
          'Management  (https://docs.pytorch.org/docs/stable/notes/cuda.html#optimizing-memory-usage-with-pytorch-cuda-alloc-conf)',
      );
      // The real line (test/fixtures/sim-gpu/torch-oom.txt) has the same shape, numbers aside.
      expect(shapeOf(last)).toBe(shapeOf(realOom('torch-oom')));
      // Nothing of the failed trainer stays on the card; the neighbour's memory went with its SIGTERM.
      expect(await appsOf(pool)).toEqual([{ pid: outside.pid, usedMiB: 81_920 }]);
    } finally {
      outside.run.kill('SIGKILL');
      await outside.run;
    }
  });

  it('applies CHAMPION_LOOP_GPU_MEMORY_MIB per process: past it, the OOM text with "N allowed;" though the card has room', async () => {
    const pool = await card('cap', ['--reserved-mib', String(RESERVED)]);
    const trained = await train(pool, await config('small', { device: 'sim', gpu_ballast_gib: 4 }), 'small');
    expect(trained.exitCode).toBe(0);
    const capped = await train(pool, join(dir, 'small.yaml'), 'capped', { CHAMPION_LOOP_GPU_MEMORY_MIB: '3072' });
    expect(capped.exitCode).toBe(1);
    const last = capped.stderr.trim().split('\n').at(-1) ?? '';
    expect(last).toContain(
      'Tried to allocate 4.00 GiB. GPU 0 has a total capacity of 139.80 GiB of which 139.80 GiB is free. ' +
        'Including non-PyTorch memory, this process has 0 bytes memory in use. 3.00 GiB allowed; Of the allocated memory 0 bytes',
    );
    // The real one under a cap (set_per_process_memory_fraction) has the same shape, numbers aside.
    expect(shapeOf(last)).toBe(shapeOf(realOom('torch-oom-capped')));
    expect(shapeOf(last)).not.toBe(shapeOf(realOom('torch-oom')));
    const roomy = await train(pool, join(dir, 'small.yaml'), 'roomy', { CHAMPION_LOOP_GPU_MEMORY_MIB: '4096' });
    expect(roomy.exitCode).toBe(0);
    const bad = await train(pool, join(dir, 'small.yaml'), 'bad', { CHAMPION_LOOP_GPU_MEMORY_MIB: 'lots' });
    expect(bad.exitCode).toBe(2);
    expect(bad.stderr).toContain("CHAMPION_LOOP_GPU_MEMORY_MIB='lots' is not a number of MiB");
  });

  it('evaluates holding gpu_eval_ballast_gib, and an ensemble the sum of its members’, taken member by member', async () => {
    const pool = await card('eval', ['--reserved-mib', String(RESERVED)]);
    const a = await config('member-a', { device: 'sim', gpu_ballast_gib: 20, gpu_eval_ballast_gib: 6 });
    const b = await config('member-b', { device: 'sim', gpu_ballast_gib: 9 });
    expect((await train(pool, a, 'member-a')).exitCode).toBe(0);
    const checkpoint = join(dir, 'runs', 'member-a', 'checkpoint-0004.json');
    const evaluate = (configPath: string, env: Record<string, string> = {}) =>
      step(
        'evaluate',
        [
          ...['--config', configPath, '--checkpoint', checkpoint, '--role', 'test'],
          ...['--output', join(dir, 'eval.json'), '--scores-output', join(dir, 'eval.scores.jsonl')],
        ],
        { CHAMPION_LOOP_SIM_GPU: pool, ...env },
      );
    const single = await evaluate(a);
    expect(single.exitCode).toBe(0);
    expect(gpuLines(single.stdout).map((line) => line.allocated_mib)).toEqual([6 * 1024]);
    // No gpu_eval_ballast_gib: an evaluation holds what training does.
    const plain = await evaluate(b);
    expect(plain.stderr).toBe('');
    expect(gpuLines(plain.stdout).map((line) => line.allocated_mib)).toEqual([9 * 1024]);
    const manifest = join(dir, 'manifest.json');
    await writeFile(
      manifest,
      JSON.stringify({
        members: [
          { config: a, checkpoint },
          { config: b, checkpoint },
        ],
      }),
    );
    const ensemble = (env: Record<string, string> = {}) =>
      step(
        'ensemble_evaluate',
        [
          ...['--manifest', manifest, '--role', 'test'],
          ...['--output', join(dir, 'ens.json'), '--scores-output', join(dir, 'ens.scores.jsonl')],
        ],
        { CHAMPION_LOOP_SIM_GPU: pool, ...env },
      );
    const whole = await ensemble();
    expect(whole.exitCode).toBe(0);
    expect(gpuLines(whole.stdout).map((line) => line.allocated_mib)).toEqual([6 * 1024, 15 * 1024]);
    // Capped below the sum: the first member loads, the second OOMs.
    const capped = await ensemble({ CHAMPION_LOOP_GPU_MEMORY_MIB: String(12 * 1024) });
    expect(capped.exitCode).toBe(1);
    expect(gpuLines(capped.stdout).map((line) => line.allocated_mib)).toEqual([6 * 1024]);
    expect(capped.stderr).toContain(
      'torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 9.00 GiB. GPU 0 has a total capacity of 139.80 GiB',
    );
    expect(capped.stderr).toContain(
      'this process has 6.00 GiB memory in use. 12.00 GiB allowed; Of the allocated memory 6.00 GiB',
    );
    expect(await appsOf(pool)).toEqual([]);
  });
});
