import type { ActivitySlotInfo, CustomSlotSupplier, SlotPermit } from '@temporalio/worker';
import { stepMarkOf } from '../activities/support/step-survivors.mjs';
import type { GpuReading } from './gpu-memory.js';
import { LaneAdmission } from './lane-admission.js';
import { stepDevice } from './step-device.js';
import type { StepAdmitted, StepGpuNeed, StepRegistry, StepWait } from '../activities/support/step-types.js';
import type { LaneSteps } from './lane-steps.js';
import { pidsRefusal, type PidsReading } from './pids-limit.js';

export interface MemoryGuardOptions {
  /** Jobs this lane runs at once. */
  readonly slots: number;
  /** What a job may grow to when it brings no need of its own (loop.yaml `min_free_gib`): it holds that much until nvidia-smi shows what it allocated. */
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
  /** How many later steps may start before one waiting for room (lane-admission.ts; default 0: none). */
  readonly overtaking?: number;
  /** The lane: its task queue and physical device, as each step's admission names them (tests go without). */
  readonly lane?: { readonly queue: string; readonly device: number };
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

/** A lane's memory guard: its activity slots, and (with `steps`) the registry its steps start through. */
export interface MemoryGuard {
  readonly slots: CustomSlotSupplier<ActivitySlotInfo>;
  /** The lane's step registry (its StepScope's `steps`): absent when the guard was given no `steps`. */
  readonly steps?: StepRegistry;
}

/** The guard's activity slots alone (a lane without per-step admission). */
export function memoryGuardSlots(options: MemoryGuardOptions): CustomSlotSupplier<ActivitySlotInfo> {
  return memoryGuard(options).slots;
}

/**
 * A GPU lane's admission as I/O: reads the device (and the cgroup's pids limit) and applies the
 * lane's rules (lane-admission.ts) to each reading. The worker polls for a job only while a slot
 * may be reserved; with the lane's `steps`, each step then waits at its start until there is room
 * for what its own job may grow to. The check and the holding happen together, after the
 * reading, so racing admissions see each other. The pids guard is a floor on headroom at
 * reservation, as in the seed, not a holding. Without a GPU, slots (and the pids limit) decide.
 */
export function memoryGuard(given: MemoryGuardOptions): MemoryGuard {
  const steps = given.steps;
  const markOf = given.markOf ?? stepMarkOf;
  const admission = new LaneAdmission({
    slots: given.slots,
    laneNeedMiB: given.minFreeGiB * 1024,
    ...(steps ? { steps } : {}),
    markOf,
    overtaking: given.overtaking ?? 0,
  });
  // The last reading of the device, for what each step's heartbeat says of it.
  let last: GpuReading | null = null;
  const options = { ...given, read: async () => (last = await given.read()) };
  // Reservations and steps waiting for room: a released slot or an ended step wakes them at once,
  // so the lane never idles a poll period.
  const wakers = new Set<() => void>();
  const slots = guardedSlots(options, admission, wakers);
  if (!steps) return { slots };
  const registry = guardedSteps(options, admission, steps, wakers);
  return { slots, steps: { ...registry, device: (mark) => stepDevice(last, mark, admission.needOf(mark), markOf) } };
}

/** Wakes every reservation and step waiting for room. */
function wakeAll(wakers: Set<() => void>): void {
  for (const wake of [...wakers]) wake();
}

/**
 * The lane's activity slots: a slot is reserved only once the reading (and the pids limit) has
 * room for one more job, polled every `pollMs` or sooner when a slot is released; the waits are
 * logged once each.
 */
function guardedSlots(
  options: MemoryGuardOptions,
  admission: LaneAdmission,
  wakers: Set<() => void>,
): CustomSlotSupplier<ActivitySlotInfo> {
  const pollMs = options.pollMs ?? 5_000;
  const log = options.log ?? (() => undefined);
  const readPids = options.readPids ?? (() => Promise.resolve<PidsReading>({ kind: 'unlimited' }));
  const steps = options.steps;
  let lastWait = '';
  const pidsWait = (pids: PidsReading): string | null => {
    const refusal = options.minFreePids === undefined ? null : pidsRefusal(pids, options.minFreePids);
    return refusal === null ? null : `waiting for process headroom: ${refusal}`;
  };
  return {
    type: 'custom',
    async reserveSlot(_context, abort): Promise<SlotPermit> {
      for (;;) {
        // The SDK expects its own abort reason back when the worker shuts down.
        if (abort.aborted) throw abort.reason;
        if (admission.full) {
          // Every slot busy: still read the device now and then, so each step's peak is seen.
          if (steps && steps.count > 0) admission.held(await options.read());
        } else {
          const [reading, pids] = await Promise.all([options.read(), readPids()]);
          if (abort.aborted) throw abort.reason;
          // From here to the return nothing awaits: the holdings counted are those of this moment.
          const why = admission.reserveRefusal(reading) ?? pidsWait(pids);
          if (why === null) {
            admission.reserve();
            lastWait = '';
            return {};
          }
          if (why !== '' && why !== lastWait) log(why);
          if (why !== '') lastWait = why;
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
      admission.release();
      wakeAll(wakers);
    },
  };
}

/**
 * The lane's step registry: a step starts once the reading has room for what its job may grow
 * to (polled, or sooner when a step ends), and each start and end is booked on the lane's steps.
 */
function guardedSteps(
  options: MemoryGuardOptions,
  admission: LaneAdmission,
  steps: LaneSteps,
  wakers: Set<() => void>,
): StepRegistry {
  const pollMs = options.pollMs ?? 5_000;
  let admitted = 0;
  return {
    async admit(mark: string, need: StepGpuNeed | undefined, wait: StepWait): Promise<StepAdmitted> {
      const needMiB = admission.wait(mark, need?.mib, wait.priorityKey);
      const whose = need === undefined ? `the lane's min_free_gib` : need.why;
      // Until it starts, a step's own abort is the only way out; the lane's stop reaches it through it.
      const abort = wait.signal ?? new AbortController().signal;
      try {
        for (;;) {
          if (abort.aborted) throw abort.reason;
          const reading = await options.read();
          if (abort.aborted) throw abort.reason;
          // From here to the return nothing awaits, as for a reservation.
          const why = admission.tryStart(mark, reading, whose);
          if (why === null) {
            wakeAll(wakers);
            admitted += 1;
            const lane = options.lane === undefined ? {} : { worker: options.lane.queue, device: options.lane.device };
            return { needMiB, slot: admitted, ...lane };
          }
          wait.waiting(why);
          await sleep(pollMs, abort, wakers);
        }
      } finally {
        if (admission.cancel(mark)) wakeAll(wakers);
      }
    },
    started: (mark, needMiB) => {
      steps.started(mark, needMiB);
    },
    ended: (mark) => {
      const use = steps.ended(mark);
      wakeAll(wakers);
      return use;
    },
  };
}
