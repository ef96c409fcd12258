// What a step and the lane it runs on share (the types): its heartbeat, its outcome, its GPU need and
// use, and the lane's record of its steps (src/workers/memory-guard.ts keeps it).
import type { GpuNeed } from '../../rules/gpu-needs.js';

/** Heartbeat details while a step runs: enough to find its processes on the lane's host. */
export interface StepHeartbeat {
  readonly step: string;
  /** The command's pid. */
  readonly pid: number;
  /** Its process group: the command leads it, so the same number. */
  readonly pgid: number;
  readonly elapsedMs: number;
  /** Set while the step waits at its start for its lane's GPU memory (pid and pgid are 0 then): why. */
  readonly waiting?: string;
  /** On a lane that admits steps by GPU memory: the step's device as the lane last read it. */
  readonly device?: StepDevice;
  /** The same in words, with whether the step runs or waits for memory and since when (the Web UI's heartbeat details show it). */
  readonly gpu?: string;
}

/**
 * A step's device as its lane last read it (`status` and `watch` show it, client/lane-devices.ts):
 * the card's size and free memory, what the step's own processes hold of it and what it was (or
 * waits to be) admitted to grow to, in MiB.
 */
export interface StepDevice {
  readonly index: number;
  readonly totalMiB: number;
  readonly freeMiB: number;
  readonly heldMiB: number;
  readonly needMiB: number;
}

/** What a step may grow to on its GPU, and why the loop thinks so (said while the step waits for it). */
export type StepGpuNeed = GpuNeed;

/** How a step ended. `exitCode` is null when a signal ended it. */
export interface StepResult {
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly pid: number;
  readonly pgid: number;
  readonly started: string;
  readonly finished: string;
  /** Byte offset in the log where this run's output begins (earlier attempts come before). */
  readonly logStart: number;
  /** Killed because nothing it wrote changed for `progress.quietMs`. */
  readonly stalled: boolean;
  /** What it used of its lane's GPU, when it ran on a lane that watches its device. */
  readonly gpu?: StepGpuUse;
  /** How its lane admitted it, on a lane that admits steps by GPU memory (it started at `started`). */
  readonly admitted?: StepAdmitted;
}

/** A lane's admission of one step: what it let it grow to, and which of its admissions it was. */
export interface StepAdmitted {
  /** The GPU memory the step was admitted to grow to (its job's need, else the lane's). */
  readonly needMiB: number;
  /** Its place among the steps the lane's worker admitted since it started (1 first). */
  readonly slot: number;
  /** The lane: its task queue and physical device (a registry that knows them). */
  readonly worker?: string;
  readonly device?: number;
}

/** What one step used of its lane's GPU: the most memory its processes held at once (as sampled) and how long it ran. */
export interface StepGpuUse {
  readonly peakMiB: number;
  readonly seconds: number;
  /** Whether anything else held the device while it ran (another step, an outside process); absent: unknown. */
  readonly shared?: boolean;
  /** The device's size, when the lane read it. */
  readonly totalMiB?: number;
}

/** A lane's record of the steps running on it, for its memory guard (src/workers/memory-guard.ts). */
export interface StepRegistry {
  /**
   * Wait until the lane has room for a step that may grow to `need` (absent: the lane's per-job
   * need), telling `waiting` why while it cannot start; then count the step as started (as
   * `started` does) before resolving with the admission, so no other admission misses it.
   * Rejects with the signal's reason when it is aborted. A registry without it starts every
   * step at once.
   */
  admit?(mark: string, need: StepGpuNeed | undefined, wait: StepWait): Promise<StepAdmitted>;
  started(mark: string, needMiB?: number): void;
  ended(mark: string): StepGpuUse | null;
  /** The step's device as the lane last read it, for its heartbeats (absent or null: not a GPU lane, or not read yet). */
  device?(mark: string): StepDevice | null;
}

/** How a step waiting for its lane's memory is stopped, and where it says why it waits. */
export interface StepWait {
  readonly signal: AbortSignal | undefined;
  readonly waiting: (why: string) => void;
  /** The step's Temporal priority key (its activity's): a less urgent step never takes its room. */
  readonly priorityKey?: number;
}
