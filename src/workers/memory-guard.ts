import type { ActivitySlotInfo, CustomSlotSupplier, SlotPermit } from '@temporalio/worker';
import { stepMarkOf } from '../activities/support/step-survivors.mjs';
import { hasRoom, type GpuReading } from './gpu-memory.js';
import { usedByStep, type LaneSteps } from './lane-steps.js';
import { pidsRefusal, type PidsReading } from './pids-limit.js';

export interface MemoryGuardOptions {
  /** Jobs this lane runs at once. */
  readonly slots: number;
  /** Free GPU memory a job needs before the lane takes it; each admitted job holds this much until its slot is released. */
  readonly minFreeGiB: number;
  readonly read: () => Promise<GpuReading>;
  /** Tasks the cgroup's pids limit must still allow before the lane takes a job (default: no pids guard). */
  readonly minFreePids?: number;
  readonly readPids?: () => Promise<PidsReading>;
  /**
   * The steps the lane's jobs run, to attribute the device's memory to them: a job then keeps
   * reserved only what it may still allocate, not its whole need (absent: each job holds its need).
   */
  readonly steps?: LaneSteps;
  /** Which step a process belongs to (default: its CHAMPION_LOOP_STEP mark in /proc). */
  readonly markOf?: (pid: number) => string | null;
  /** How often to look again while the device is too full. */
  readonly pollMs?: number;
  readonly log?: (message: string) => void;
}

const gib = (mib: number): string => {
  const value = mib / 1024;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
};

/** Why a reading leaves no room for one more job while the lane's `running` jobs keep `heldMiB` of it for themselves. */
function memoryRefusal(reading: GpuReading, minFreeGiB: number, running: number, heldMiB: number): string {
  if (reading.kind === 'error') return reading.reason;
  if (reading.kind === 'no-gpu') return '';
  const free = `device ${reading.memory.index} has ${(reading.memory.freeMiB / 1024).toFixed(1)} GiB free`;
  const held =
    running === 0 ? '' : `, ${gib(heldMiB)} GiB of it held by ${running} job${running === 1 ? '' : 's'} this lane took`;
  return `${free}${held}, a job needs ${minFreeGiB} GiB`;
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
 * Activity slots of a GPU lane: the worker polls for a job only while it has a free slot, the
 * device has the free memory the loop asks for, and the cgroup's pids limit leaves headroom.
 * Without a GPU, slots (and the pids limit) alone decide.
 *
 * Admission cannot over-admit: every reserved slot holds `minFreeGiB` of the device until the
 * slot is released (the job ended, or the poll that wanted it found nothing), and a new slot is
 * reserved only while nvidia-smi's free memory less those holdings leaves `minFreeGiB`. With the
 * lane's `steps`, a job whose step runs holds only what it may still allocate: its need (or the
 * most it was seen holding, if more) less what nvidia-smi lists its processes holding, which is
 * in the free memory already (lane-steps.ts). A job nvidia-smi lists nothing for keeps its whole
 * need, as every job did before steps were attributed. The check and the holding happen
 * together, after the reading, so racing reservations see each other. The pids guard is a floor
 * on headroom at admission, as in the seed, not a holding.
 */
export function memoryGuardSlots(options: MemoryGuardOptions): CustomSlotSupplier<ActivitySlotInfo> {
  const pollMs = options.pollMs ?? 5_000;
  const log = options.log ?? (() => undefined);
  const readPids = options.readPids ?? (() => Promise.resolve<PidsReading>({ kind: 'unlimited' }));
  const markOf = options.markOf ?? stepMarkOf;
  const needMiB = options.minFreeGiB * 1024;
  const steps = options.steps;
  /** What the lane's jobs keep for themselves of the device, after one reading (their steps' peaks noted). */
  const heldMiB = (reading: GpuReading): number => {
    if (reading.kind === 'gpu') steps?.sawDevice();
    const used = reading.kind === 'gpu' ? usedByStep(reading.processes, markOf) : new Map<string, number>();
    steps?.observe(used);
    // Slots whose job runs no step right now (it is starting, or between steps) hold the whole need.
    const waiting = Math.max(0, reserved - (steps?.count ?? 0));
    return (steps?.headroomMiB(used, needMiB) ?? 0) + waiting * needMiB;
  };
  // Slots reserved and not yet released: each holds `minFreeGiB` of the device.
  let reserved = 0;
  let lastWait = '';
  const pidsWait = (pids: PidsReading): string | null => {
    const refusal = options.minFreePids === undefined ? null : pidsRefusal(pids, options.minFreePids);
    return refusal === null ? null : `waiting for process headroom: ${refusal}`;
  };
  // Reservations waiting for a slot: a released slot wakes them at once, so the lane never idles a poll period.
  const wakers = new Set<() => void>();
  return {
    type: 'custom',
    async reserveSlot(_context, abort): Promise<SlotPermit> {
      for (;;) {
        // The SDK expects its own abort reason back when the worker shuts down.
        if (abort.aborted) throw abort.reason;
        if (reserved >= options.slots && steps && steps.count > 0) {
          // Every slot busy: still read the device now and then, so each step's peak is seen.
          heldMiB(await options.read());
        } else if (reserved < options.slots) {
          const [reading, pids] = await Promise.all([options.read(), readPids()]);
          if (abort.aborted) throw abort.reason;
          // From here to the return nothing awaits: the holdings counted are those of this moment.
          const held = heldMiB(reading);
          const why = !hasRoom(reading, options.minFreeGiB, held / 1024)
            ? `waiting for GPU memory: ${memoryRefusal(reading, options.minFreeGiB, reserved, held)}`
            : pidsWait(pids);
          if (why === null && reserved < options.slots) {
            reserved += 1;
            lastWait = '';
            return {};
          }
          if (why !== null && why !== lastWait) log(why);
          lastWait = why ?? '';
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
