import type { ActivitySlotInfo, CustomSlotSupplier, SlotPermit } from '@temporalio/worker';
import { hasRoom, type GpuReading } from './gpu-memory.js';

export interface MemoryGuardOptions {
  /** Jobs this lane runs at once. */
  readonly slots: number;
  /** Free GPU memory a job needs before the lane takes it. */
  readonly minFreeGiB: number;
  readonly read: () => Promise<GpuReading>;
  /** How often to look again while the device is too full. */
  readonly pollMs?: number;
  readonly log?: (message: string) => void;
}

/** Sleep for `ms`, or less: until the worker aborts or `wakers` are called (a slot was released). */
function sleep(ms: number, abort: AbortSignal, wakers: Set<() => void>): Promise<void> {
  return new Promise((resolve) => {
    const wake = (): void => {
      clearTimeout(timer);
      wakers.delete(wake);
      abort.removeEventListener('abort', wake);
      resolve();
    };
    const timer = setTimeout(wake, ms);
    wakers.add(wake);
    abort.addEventListener('abort', wake, { once: true });
  });
}

/**
 * Activity slots of a GPU lane: the worker polls for a job only while it has a free slot and
 * the device has the free memory the loop asks for. Without a GPU, slots alone decide.
 */
export function memoryGuardSlots(options: MemoryGuardOptions): CustomSlotSupplier<ActivitySlotInfo> {
  const pollMs = options.pollMs ?? 5_000;
  const log = options.log ?? (() => undefined);
  let reserved = 0;
  let lastWait = '';
  // Reservations waiting for a slot: a released slot wakes them at once, so the lane never idles a poll period.
  const wakers = new Set<() => void>();
  return {
    type: 'custom',
    async reserveSlot(_context, abort): Promise<SlotPermit> {
      for (;;) {
        // The SDK expects its own abort reason back when the worker shuts down.
        if (abort.aborted) throw abort.reason;
        if (reserved < options.slots) {
          const reading = await options.read();
          if (hasRoom(reading, options.minFreeGiB)) {
            reserved += 1;
            lastWait = '';
            return {};
          }
          const why =
            reading.kind === 'gpu'
              ? `device ${reading.memory.index} has ${(reading.memory.freeMiB / 1024).toFixed(1)} GiB free, a job needs ${options.minFreeGiB} GiB`
              : reading.kind === 'error'
                ? reading.reason
                : '';
          if (why !== lastWait) log(`waiting for GPU memory: ${why}`);
          lastWait = why;
        }
        await sleep(pollMs, abort, wakers);
      }
    },
    tryReserveSlot(): SlotPermit | null {
      // Eager dispatch would skip the memory check; GPU jobs are long enough to poll for.
      return null;
    },
    markSlotUsed(): void {},
    releaseSlot(): void {
      reserved = Math.max(0, reserved - 1);
      for (const wake of [...wakers]) wake();
    },
  };
}
