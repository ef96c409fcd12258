import { describe, expect, it } from 'vitest';
import type { GpuReading } from '../../src/workers/gpu-memory.js';
import { memoryGuardSlots } from '../../src/workers/memory-guard.js';

const gpu = (freeMiB: number): GpuReading => ({ kind: 'gpu', memory: { index: 0, totalMiB: 143771, usedMiB: 143771 - freeMiB, freeMiB } });
const context = { slotType: 'activity' as const, taskQueue: 'q', workerIdentity: 'w', workerBuildId: '', isSticky: false };

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
    const guard = memoryGuardSlots({ slots: 1, minFreeGiB: 30, read: () => Promise.resolve(readings.shift() ?? gpu(40 * 1024)), pollMs: 5, log: (m) => messages.push(m) });
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
