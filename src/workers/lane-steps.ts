// The steps running on one GPU lane and what each holds of its device, for the memory guard:
// nvidia-smi's per-process memory, attributed to steps by the mark their processes carry.
import type { StepGpuUse, StepRegistry } from '../activities/support/step-types.js';
import type { GpuProcess } from './gpu-memory.js';

interface RunningStep {
  readonly startedMs: number;
  /** What this step may grow to, when its job said (else the lane's per-job need). */
  readonly needMiB: number | null;
  /** The most memory its processes were seen holding at once. */
  peakMiB: number;
  /** Whether anything else held the device at a reading while it ran: another step, an outside process. */
  shared: boolean;
}

/** Memory on a device that no process of the lane's steps holds, under which the device counts as the step's alone (driver reservations, an idle context). */
const IDLE_DEVICE_MIB = 2048;

/** MiB each running step's processes hold now, by the step's mark (processes of no step are left out). */
export function usedByStep(
  processes: readonly GpuProcess[] | undefined,
  markOf: (pid: number) => string | null,
): Map<string, number> {
  const used = new Map<string, number>();
  for (const { pid, usedMiB } of processes ?? []) {
    const mark = markOf(pid);
    if (mark !== null) used.set(mark, (used.get(mark) ?? 0) + usedMiB);
  }
  return used;
}

/**
 * The lane's running steps. A step may still grow to its need: its job's own, else the lane's
 * per-job need (loop.yaml `min_free_gib`), or the most it was seen holding if that is more. What it may still
 * take is that need less what it holds now: memory it has allocated is in nvidia-smi's free
 * memory already, so it is not counted twice. A step whose processes nvidia-smi does not list
 * (no per-process view, another PID namespace) holds nothing as far as the lane can tell, so
 * its whole need stays reserved: never less safe than counting every job at its need.
 */
export class LaneSteps implements StepRegistry {
  private readonly running = new Map<string, RunningStep>();
  /** Whether the lane's guard has read a real device: only then is a step's time GPU time. */
  private gpu = false;
  /** The device's size, from the last reading of it. */
  private totalMiB: number | null = null;

  constructor(private readonly nowMs: () => number = Date.now) {}

  /** The guard read the lane's device (nvidia-smi answered for it). */
  sawDevice(totalMiB?: number): void {
    this.gpu = true;
    if (totalMiB !== undefined) this.totalMiB = totalMiB;
  }

  started(mark: string, needMiB?: number): void {
    this.running.set(mark, { startedMs: this.nowMs(), needMiB: needMiB ?? null, peakMiB: 0, shared: false });
  }

  ended(mark: string): StepGpuUse | null {
    const step = this.running.get(mark);
    if (!step) return null;
    this.running.delete(mark);
    if (!this.gpu) return null;
    return {
      peakMiB: step.peakMiB,
      seconds: Math.round((this.nowMs() - step.startedMs) / 100) / 10,
      shared: step.shared,
      ...(this.totalMiB === null ? {} : { totalMiB: this.totalMiB }),
    };
  }

  /** What a running step may grow to (null: the lane's per-job need), or undefined when it does not run. */
  needOf(mark: string): number | null | undefined {
    return this.running.get(mark)?.needMiB;
  }

  get count(): number {
    return this.running.size;
  }

  /**
   * Note what each step holds now (from one reading), and whether anything else holds the device:
   * `othersMiB`, what the device's processes outside the lane's steps hold (null: unknown).
   */
  observe(used: ReadonlyMap<string, number>, othersMiB: number | null = null): void {
    const crowded = this.running.size > 1 || (othersMiB !== null && othersMiB > IDLE_DEVICE_MIB);
    for (const [mark, step] of this.running) {
      step.peakMiB = Math.max(step.peakMiB, used.get(mark) ?? 0);
      if (crowded) step.shared = true;
    }
  }

  /** MiB the running steps may still allocate, each up to its own need or the lane's (or its peak seen, if more). */
  headroomMiB(used: ReadonlyMap<string, number>, needMiB: number): number {
    let headroom = 0;
    for (const [mark, step] of this.running) {
      const holds = used.get(mark) ?? 0;
      headroom += Math.max(0, Math.max(step.needMiB ?? needMiB, step.peakMiB) - holds);
    }
    return headroom;
  }
}
