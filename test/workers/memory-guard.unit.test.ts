import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseGpuMemory, type GpuProcess, type GpuReading } from '../../src/workers/gpu-memory.js';
import { LaneSteps } from '../../src/workers/lane-steps.js';
import { memoryGuard, memoryGuardSlots } from '../../src/workers/memory-guard.js';

const gpu = (freeMiB: number): GpuReading => ({
  kind: 'gpu',
  memory: { index: 0, totalMiB: 143771, usedMiB: 143771 - freeMiB, freeMiB },
});
const context = {
  slotType: 'activity' as const,
  taskQueue: 'q',
  workerIdentity: 'w',
  workerBuildId: '',
  isSticky: false,
};

describe('memoryGuardSlots', () => {
  it('hands out no more slots than the lane has, and a released slot again', async () => {
    const guard = memoryGuardSlots({ slots: 2, minFreeGiB: 0, read: () => Promise.resolve(gpu(1000)), pollMs: 5 });
    const abort = new AbortController();
    await guard.reserveSlot(context, abort.signal);
    await guard.reserveSlot(context, abort.signal);
    let third = false;
    const pending = guard.reserveSlot(context, abort.signal).then(() => (third = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(third).toBe(false);
    guard.releaseSlot({ permit: {}, slotInfo: undefined });
    await pending;
    expect(third).toBe(true);
  });

  it('hands a released slot to a waiting reservation at once, not after the poll period', async () => {
    const guard = memoryGuardSlots({ slots: 1, minFreeGiB: 0, read: () => Promise.resolve(gpu(1000)), pollMs: 60_000 });
    const abort = new AbortController();
    await guard.reserveSlot(context, abort.signal);
    const waiting = guard.reserveSlot(context, abort.signal);
    await new Promise((resolve) => setTimeout(resolve, 10));
    const released = Date.now();
    guard.releaseSlot({ permit: {}, slotInfo: undefined });
    await waiting;
    expect(Date.now() - released).toBeLessThan(1_000);
  });

  it('waits while the device has less free memory than a job needs, and says why once', async () => {
    const readings = [gpu(10 * 1024), gpu(10 * 1024), gpu(40 * 1024)];
    const messages: string[] = [];
    const guard = memoryGuardSlots({
      slots: 1,
      minFreeGiB: 30,
      read: () => Promise.resolve(readings.shift() ?? gpu(40 * 1024)),
      pollMs: 5,
      log: (m) => messages.push(m),
    });
    await guard.reserveSlot(context, new AbortController().signal);
    expect(readings).toHaveLength(0);
    expect(messages).toEqual(['waiting for GPU memory: device 0 has 10.0 GiB free, a job needs 30 GiB']);
  });

  it('stops waiting when the worker shuts down', async () => {
    const guard = memoryGuardSlots({ slots: 1, minFreeGiB: 30, read: () => Promise.resolve(gpu(0)), pollMs: 5 });
    const abort = new AbortController();
    const reservation = guard.reserveSlot(context, abort.signal);
    abort.abort();
    await expect(reservation).rejects.toThrow(/aborted/);
  });

  it('never reserves eagerly, which would skip the memory check', () => {
    const guard = memoryGuardSlots({ slots: 1, minFreeGiB: 0, read: () => Promise.resolve(gpu(1)) });
    expect(guard.tryReserveSlot(context)).toBeNull();
  });
});

/** The recorded H200, idle: 143156 MiB (139.8 GiB) free. A reading takes a few ms, as nvidia-smi does. */
async function recordedH200(file = 'query-gpu-noheader.csv'): Promise<() => Promise<GpuReading>> {
  const [memory] = parseGpuMemory(await readFile(new URL(`../fixtures/nvidia-smi/${file}`, import.meta.url), 'utf8'));
  return () => new Promise((resolve) => setTimeout(() => resolve({ kind: 'gpu', memory: memory! }), 5));
}

/** Start `count` reservations at once; `granted()` counts those granted so far. */
async function race(
  guard: ReturnType<typeof memoryGuardSlots>,
  count: number,
  abort: AbortSignal,
  ms = 60,
): Promise<{ granted: () => number }> {
  let granted = 0;
  void Promise.all(
    Array.from({ length: count }, () => guard.reserveSlot(context, abort).then(() => (granted += 1))),
  ).catch(() => undefined);
  await new Promise((resolve) => setTimeout(resolve, ms));
  return { granted: () => granted };
}

/** That exactly `count` reservations are granted, and stay so a while (the rest keep waiting). */
async function settlesAt(granted: () => number, count: number): Promise<void> {
  await expect.poll(granted).toBe(count);
  await new Promise((resolve) => setTimeout(resolve, 50));
  expect(granted()).toBe(count);
}

describe('memoryGuardSlots on the recorded H200 (139.8 GiB free)', () => {
  it('with 2 slots, never admits two jobs on memory only one of them fits in', async () => {
    const guard = memoryGuardSlots({ slots: 2, minFreeGiB: 100, read: await recordedH200(), pollMs: 5 });
    const abort = new AbortController();
    const { granted } = await race(guard, 2, abort.signal);
    await settlesAt(granted, 1);
    abort.abort();
  });

  it('with 4 slots, admits as many jobs as fit together: three of 40 GiB, not four', async () => {
    const guard = memoryGuardSlots({ slots: 4, minFreeGiB: 40, read: await recordedH200(), pollMs: 5 });
    const abort = new AbortController();
    const { granted } = await race(guard, 4, abort.signal);
    await settlesAt(granted, 3);
    abort.abort();
  });

  it('with 4 slots, admits all four when four fit (30 GiB each)', async () => {
    const guard = memoryGuardSlots({ slots: 4, minFreeGiB: 30, read: await recordedH200(), pollMs: 5 });
    const abort = new AbortController();
    const { granted } = await race(guard, 5, abort.signal);
    await settlesAt(granted, 4);
    abort.abort();
  });

  it('admits the waiting job once a reservation is released, and says why it waited', async () => {
    const messages: string[] = [];
    const guard = memoryGuardSlots({
      slots: 4,
      minFreeGiB: 70,
      read: await recordedH200(),
      pollMs: 60_000,
      log: (m) => messages.push(m),
    });
    const abort = new AbortController();
    const { granted } = await race(guard, 3, abort.signal);
    await settlesAt(granted, 1);
    expect(messages).toEqual([
      'waiting for GPU memory: device 0 has 139.8 GiB free, 70 GiB of it held by 1 job this lane took, a job needs 70 GiB',
    ]);
    guard.releaseSlot({ permit: {}, slotInfo: undefined });
    await settlesAt(granted, 2);
    abort.abort();
  });

  it("holds a job's memory until its slot is released, even once nvidia-smi shows what it allocated", async () => {
    // torch-alloc.txt: a process allocated 20 GiB; free went from 143153 to 122150 MiB.
    const capture = await readFile(new URL('../fixtures/nvidia-smi/torch-alloc.txt', import.meta.url), 'utf8');
    const [before, after] = [...capture.matchAll(/^(?:before|after 20 GiB): (.*)$/gm)].map(
      (match) => parseGpuMemory(match[1] ?? '')[0]!,
    );
    let memory = before!;
    const guard = memoryGuardSlots({
      slots: 2,
      minFreeGiB: 70,
      read: () => Promise.resolve({ kind: 'gpu', memory }),
      pollMs: 5,
    });
    const abort = new AbortController();
    await guard.reserveSlot(context, abort.signal);
    memory = after!; // 119.3 GiB free: 70 more would fit, but the first job may still take up to 70.
    const { granted } = await race(guard, 1, abort.signal);
    expect(granted()).toBe(0);
    guard.releaseSlot({ permit: {}, slotInfo: undefined });
    await expect.poll(granted).toBe(1);
  });
});

describe('memoryGuardSlots with the steps of its jobs (per-process memory from nvidia-smi)', () => {
  // torch-alloc.txt: one process (pid 425) allocated 20 GiB; free went from 143153 to 122150 MiB.
  async function afterTorchAlloc(processes: readonly GpuProcess[]): Promise<GpuReading> {
    const capture = await readFile(new URL('../fixtures/nvidia-smi/torch-alloc.txt', import.meta.url), 'utf8');
    const [line] = [...capture.matchAll(/^after 20 GiB: (.*)$/gm)].map((match) => match[1] ?? '');
    return { kind: 'gpu', memory: parseGpuMemory(line ?? '')[0]!, processes };
  }
  const marks = (pids: Record<number, string>) => (pid: number) => pids[pid] ?? null;

  /** A 2-slot lane needing 60 GiB a job, one job ('job-1') running as torch-alloc.txt's process; then a second wants in. */
  async function secondJob(markOf: (pid: number) => string | null) {
    const reading = await afterTorchAlloc([{ pid: 425, usedMiB: 20998 }]);
    const steps = new LaneSteps();
    const messages: string[] = [];
    const guard = memoryGuardSlots({
      slots: 2,
      minFreeGiB: 60,
      read: () => Promise.resolve(reading),
      steps,
      markOf,
      pollMs: 5,
      log: (m) => messages.push(m),
    });
    const abort = new AbortController();
    await guard.reserveSlot(context, abort.signal);
    steps.started('job-1');
    const { granted } = await race(guard, 1, abort.signal);
    return { granted, messages, abort };
  }

  it("counts a running job's allocated memory once: it holds only its need less what its processes hold", async () => {
    // 119.3 GiB free. The first job needs 60 and holds 20.5: it may take 39.5 more, which leaves 79.8 for a second.
    const { granted, messages, abort } = await secondJob(marks({ 425: 'job-1' }));
    await settlesAt(granted, 1);
    expect(messages).toEqual([]);
    abort.abort();
  });

  it('keeps the whole need of a job whose processes nvidia-smi does not list (as without steps)', async () => {
    // pid 425 belongs to no step of this lane (another program, or another PID namespace).
    const { granted, messages, abort } = await secondJob(marks({}));
    expect(granted()).toBe(0);
    expect(messages).toEqual([
      'waiting for GPU memory: device 0 has 119.3 GiB free, 60 GiB of it held by 1 job this lane took, a job needs 60 GiB',
    ]);
    abort.abort();
  });

  it('keeps room for a job to grow back to the most it was seen holding, when that is more than its need', async () => {
    // Seen holding 115 GiB (24.8 GiB free): no room. Then down to 20.5 GiB (119.3 free): it may take
    // 94.5 again, so still no room for 30 more; with its need (30) alone there would be.
    const holding = (usedMiB: number) => ({ ...gpu(143771 - 618 - usedMiB), processes: [{ pid: 425, usedMiB }] });
    let reading: GpuReading = holding(0);
    const steps = new LaneSteps();
    const guard = memoryGuardSlots({
      slots: 2,
      minFreeGiB: 30,
      read: () => Promise.resolve(reading),
      steps,
      markOf: marks({ 425: 'job-1' }),
      pollMs: 5,
    });
    const abort = new AbortController();
    await guard.reserveSlot(context, abort.signal);
    steps.started('job-1');
    reading = holding(115 * 1024);
    const { granted } = await race(guard, 1, abort.signal, 30);
    expect(granted()).toBe(0);
    reading = holding(20998);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(granted()).toBe(0);
    expect(steps.ended('job-1')).toMatchObject({ peakMiB: 115 * 1024, seconds: expect.any(Number) as number });
    guard.releaseSlot({ permit: {}, slotInfo: undefined });
    await settlesAt(granted, 1);
    abort.abort();
  });
});

describe("memoryGuard: each step starts once there is room for its own job's need", () => {
  const GiB = 1024;
  /** A 80 GiB card, nothing of anybody else's on it: `use` sets what each step's processes hold (by pid = step index). */
  function card() {
    const held = new Map<number, number>();
    const read = (): Promise<GpuReading> => {
      const used = [...held.values()].reduce((sum, mib) => sum + mib, 0);
      return Promise.resolve({
        kind: 'gpu',
        memory: { index: 0, totalMiB: 80 * GiB, usedMiB: used, freeMiB: 80 * GiB - used },
        processes: [...held].map(([pid, usedMiB]) => ({ pid, usedMiB })),
      });
    };
    return { read, use: (pid: number, mib: number) => held.set(pid, mib), free: (pid: number) => held.delete(pid) };
  }
  const need = (gib: number) => ({ mib: gib * GiB, why: `candidate c${gib}'s need` });

  function lane(options: { minFreeGiB: number; slots?: number; read: () => Promise<GpuReading> }) {
    const messages: string[] = [];
    const guard = memoryGuard({
      slots: options.slots ?? 8,
      minFreeGiB: options.minFreeGiB,
      read: options.read,
      steps: new LaneSteps(),
      markOf: (pid) => `step-${pid}`,
      pollMs: 5,
      log: (m) => messages.push(m),
    });
    const steps = guard.steps!;
    const waits: string[] = [];
    const abort = new AbortController();
    /** Take a job (a slot) and start its step with `gib` (undefined: the lane's need); resolves once it started. */
    const job = async (pid: number, gib: number | undefined, signal = abort.signal) => {
      await guard.slots.reserveSlot(context, abort.signal);
      await steps.admit!(`step-${pid}`, gib === undefined ? undefined : need(gib), {
        signal,
        // As runStep does: each new reason once.
        waiting: (why) => {
          if (waits.at(-1) !== why) waits.push(why);
        },
      });
    };
    const end = (pid: number) => {
      steps.ended(`step-${pid}`);
      guard.slots.releaseSlot({ permit: {}, slotInfo: undefined });
    };
    return { guard, steps, job, end, waits, messages, abort };
  }
  const pending = async (promise: Promise<unknown>, ms = 40): Promise<boolean> => {
    let done = false;
    void promise.then(
      () => (done = true),
      () => (done = true),
    );
    await new Promise((resolve) => setTimeout(resolve, ms));
    return !done;
  };

  it("runs jobs needing less than the lane's min_free_gib side by side, each held to its own need", async () => {
    const device = card();
    const { job, abort } = lane({ minFreeGiB: 45, read: device.read });
    await job(1, 6);
    await job(2, 45);
    device.use(1, 6 * GiB);
    device.use(2, 45 * GiB);
    // 29 GiB left: the lane's 45 GiB need would run nothing more; jobs of 12 and 9 GiB fit together.
    await job(3, 12);
    await job(4, 9);
    expect(await pending(job(5, 9))).toBe(true);
    abort.abort();
  });

  it("says each step's device as it last read it: the card, what is free, what the step holds and needs", async () => {
    const device = card();
    const { steps, job, abort } = lane({ minFreeGiB: 10, read: device.read });
    await job(1, 50);
    device.use(1, 30 * GiB);
    const big = job(2, 40);
    expect(await pending(big)).toBe(true);
    expect(steps.device?.('step-1')).toEqual({
      index: 0,
      totalMiB: 80 * GiB,
      freeMiB: 50 * GiB,
      heldMiB: 30 * GiB,
      needMiB: 50 * GiB,
    });
    expect(steps.device?.('step-2')).toMatchObject({ heldMiB: 0, needMiB: 40 * GiB });
    abort.abort();
    await big.catch(() => undefined);
  });

  it('holds a waiting step at its start, takes no other job meanwhile, and starts it when room frees', async () => {
    const device = card();
    const { guard, job, end, waits, abort } = lane({ minFreeGiB: 10, read: device.read });
    await job(1, 50);
    device.use(1, 50 * GiB);
    const big = job(2, 40);
    expect(await pending(big)).toBe(true);
    expect(waits).toEqual([
      "waiting for GPU memory: device 0 has 30.0 GiB free, a job needs 40 GiB (candidate c40's need)",
    ]);
    // The next job's own need gates the lane: a 6 GiB job that would fit is not taken before it.
    const small = guard.slots.reserveSlot(context, abort.signal);
    expect(await pending(small)).toBe(true);
    device.free(1);
    end(1);
    await big;
    await small;
    abort.abort();
  });

  it('keeps room for a started step to allocate its need before it is seen holding any', async () => {
    const device = card();
    const { job, waits, abort } = lane({ minFreeGiB: 10, read: device.read });
    await job(1, 50);
    // Nothing allocated yet: the 50 GiB it may take are held, so 40 more do not fit in 80.
    const second = job(2, 40);
    expect(await pending(second)).toBe(true);
    expect(waits[0]).toContain('50 GiB of it held by 1 job');
    abort.abort();
  });

  it("needs the lane's min_free_gib for a step its job brings no need for", async () => {
    const device = card();
    const { job, waits, abort } = lane({ minFreeGiB: 45, read: device.read });
    await job(1, 40);
    device.use(1, 40 * GiB);
    expect(await pending(job(2, undefined))).toBe(true);
    expect(waits).toEqual([
      "waiting for GPU memory: device 0 has 40.0 GiB free, a job needs 45 GiB (the lane's min_free_gib)",
    ]);
    abort.abort();
  });

  it('starts a step that needs more than the device has once nothing else of the lane runs, and says so', async () => {
    const device = card();
    const { job, end, waits, abort } = lane({ minFreeGiB: 10, read: device.read });
    await job(1, 20);
    device.use(1, 20 * GiB);
    const huge = job(2, 100);
    expect(await pending(huge)).toBe(true);
    expect(waits[0]).toMatch(
      /a job needs 100 GiB .*more than the device's 80 GiB: it starts once nothing else of the lane runs$/,
    );
    device.free(1);
    end(1);
    await huge;
    abort.abort();
  });

  it("gives up waiting when the step is stopped, with the stop's reason, and leaves the lane's books clean", async () => {
    const device = card();
    const { guard, steps, job, abort } = lane({ minFreeGiB: 10, read: device.read });
    await job(1, 70);
    device.use(1, 70 * GiB);
    const stop = new AbortController();
    const waiting = job(2, 40, stop.signal);
    expect(await pending(waiting)).toBe(true);
    stop.abort(new Error('stopped now'));
    await expect(waiting).rejects.toThrow('stopped now');
    guard.slots.releaseSlot({ permit: {}, slotInfo: undefined });
    // Nothing of the stopped step holds room or gates the lane: a 6 GiB job starts beside the first.
    await job(3, 6);
    expect(steps.ended('step-2')).toBeNull();
    abort.abort();
  });

  it("asks a reservation for room for the smallest need a step brought, not the lane's", async () => {
    const device = card();
    const { job, messages, abort } = lane({ minFreeGiB: 45, read: device.read });
    await job(1, 6);
    device.use(1, 6 * GiB);
    await job(2, 60);
    device.use(2, 60 * GiB);
    // 14 GiB free: under the lane's 45, over the smallest need seen (6), so the lane takes a job.
    await job(3, 6);
    abort.abort();
    expect(messages).toEqual([]);
  });

  it('admits at once where nvidia-smi answers for no device (slots alone decide)', async () => {
    const { job, waits, abort } = lane({
      minFreeGiB: 45,
      slots: 2,
      read: () => Promise.resolve({ kind: 'no-gpu', reason: 'nvidia-smi not found' }),
    });
    await job(1, 100);
    await job(2, 100);
    expect(waits).toEqual([]);
    abort.abort();
  });
});

describe('memoryGuardSlots and the pids limit', () => {
  const limited = (current: number, max: number) => () =>
    Promise.resolve({ kind: 'limited' as const, current, max, where: '/sys/fs/cgroup' });

  it('waits while the cgroup leaves less task headroom than a job needs, and says why', async () => {
    const messages: string[] = [];
    let current = 3900;
    const guard = memoryGuardSlots({
      slots: 1,
      minFreeGiB: 0,
      read: () => Promise.resolve(gpu(1000)),
      minFreePids: 512,
      readPids: () => limited(current, 4096)(),
      pollMs: 5,
      log: (m) => messages.push(m),
    });
    const abort = new AbortController();
    const { granted } = await race(guard, 1, abort.signal, 30);
    expect(granted()).toBe(0);
    expect(messages).toEqual([
      'waiting for process headroom: cgroup /sys/fs/cgroup has 3900 of pids.max 4096 tasks in use (196 left), a job needs 512 left (--min-free-pids)',
    ]);
    current = 3584;
    await expect.poll(granted).toBe(1);
  });

  it('admits by memory and slots alone without a pids limit', async () => {
    const guard = memoryGuardSlots({
      slots: 1,
      minFreeGiB: 0,
      read: () => Promise.resolve(gpu(1000)),
      minFreePids: 512,
      readPids: () => Promise.resolve({ kind: 'unlimited' }),
    });
    await guard.reserveSlot(context, new AbortController().signal);
  });
});
