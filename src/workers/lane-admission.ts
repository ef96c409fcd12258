// What a GPU lane admits, decided on one reading of its device at a time: pure and synchronous,
// so the memory guard (memory-guard.ts, the lane's I/O) and the packing bench run the same rules.
// docs/behaviour.md 4.2 says why admission sits in two places.
import { hasRoom, type GpuMemory, type GpuReading } from './gpu-memory.js';
import { usedByStep, type LaneSteps } from './lane-steps.js';
import { mayOvertake, mayTakeRoomOf } from '../rules/lane-overtaking.js';

const gib = (mib: number): string => {
  const value = mib / 1024;
  return Number.isInteger(value) ? String(value) : value.toFixed(1);
};

/** Why a reading leaves no room for a job needing `needMiB` while `holders` of the lane's keep `heldMiB` of it. */
function memoryRefusal(reading: GpuReading, needMiB: number, holders: number, heldMiB: number): string {
  if (reading.kind === 'error') return reading.reason;
  if (reading.kind === 'no-gpu') return '';
  const free = `device ${reading.memory.index} has ${(reading.memory.freeMiB / 1024).toFixed(1)} GiB free`;
  const held =
    holders === 0 || heldMiB <= 0
      ? ''
      : `, ${gib(heldMiB)} GiB of it held by ${holders} job${holders === 1 ? '' : 's'} this lane took`;
  return `${free}${held}, a job needs ${gib(needMiB)} GiB`;
}

/** What the device's memory in use holds beyond the lane's steps' processes (outside processes, other lanes' jobs, the driver). */
function othersHold(memory: GpuMemory, used: ReadonlyMap<string, number>): number {
  let ours = 0;
  for (const mib of used.values()) ours += mib;
  return Math.max(0, memory.totalMiB - memory.freeMiB - ours);
}

/** A step waiting for room: its need, its Temporal priority key, and how many steps that came after it have started before it. */
interface WaitingStep {
  readonly needMiB: number;
  readonly priorityKey: number | undefined;
  passed: number;
}

/**
 * A lane's admissions. Temporal's slot supplier decides before it sees a job, so a job is
 * admitted twice: its slot is reserved (`reserveRefusal`, `reserve`), then its step starts once
 * there is room for what its own job may grow to (`wait`, `tryStart`). While a job the lane took
 * runs no step yet (or waits for room), no other slot is reserved: the next job's own need gates
 * the next admission, in the order the jobs came. A reservation asks for room for the smallest
 * need a step has brought (the lane's need until then).
 *
 * Nothing is counted twice and nothing over-admitted: a running step holds its need (or the most
 * it was seen holding, if more) less what nvidia-smi lists its processes holding, which is in the
 * free memory already (lane-steps.ts); a step waiting to start holds its need; a slot whose job
 * runs no step holds the lane's need. Without `steps` (no per-step view) every slot holds the
 * lane's need and reservations alone admit. Without a GPU, slots alone decide.
 *
 * With `overtaking` (a number of steps), a step that waits for room does not gate the lane until
 * that many steps that came after it have started before it: until then it holds nothing, the
 * lane takes the next job and that job's step starts if there is room for it (a short evaluation
 * behind a training too big for the free memory now). Once passed that often it holds its need
 * and gates reservations, as every waiting step does without `overtaking`: no step waits for
 * more than `overtaking` later ones (docs/behaviour.md 4.2). A later step never takes the room of
 * a more urgent one (a smaller Temporal priority key: a training behind a waiting reserve check),
 * however often that one was passed: it starts only where there is room for both.
 */
export class LaneAdmission {
  private reservedSlots = 0;
  /** Steps waiting at their start for room, by mark in the order they came, with their needs. */
  private readonly waiting = new Map<string, WaitingStep>();
  private floorMiB: number;
  /** Whether the last reading was of a device: only then do steps wait and gate reservations. */
  private onGpu = false;

  constructor(
    private readonly options: {
      readonly slots: number;
      /** The lane's per-job need (loop.yaml `min_free_gib`), in MiB. */
      readonly laneNeedMiB: number;
      readonly steps?: LaneSteps;
      /** Which step a process belongs to, by its pid. */
      readonly markOf: (pid: number) => string | null;
      /** How many later steps may start before a waiting one (default 0: none, the order they came in). */
      readonly overtaking?: number;
    },
  ) {
    this.floorMiB = options.laneNeedMiB;
  }

  get reserved(): number {
    return this.reservedSlots;
  }

  get full(): boolean {
    return this.reservedSlots >= this.options.slots;
  }

  /** Slots whose job runs no step and waits for none (starting, or between steps). */
  private unplaced(): number {
    return Math.max(0, this.reservedSlots - (this.options.steps?.count ?? 0) - this.waiting.size);
  }

  /** Note a reading (each step's peak), and what the lane's jobs keep of the device by it: for waiting step `except`, what is kept before it. */
  held(reading: GpuReading, except?: string): number {
    const { steps, laneNeedMiB, markOf } = this.options;
    this.onGpu = reading.kind === 'gpu';
    if (reading.kind === 'gpu') steps?.sawDevice(reading.memory.totalMiB);
    const used = reading.kind === 'gpu' ? usedByStep(reading.processes, markOf) : new Map<string, number>();
    steps?.observe(used, reading.kind === 'gpu' ? othersHold(reading.memory, used) : null);
    let held = (steps?.headroomMiB(used, laneNeedMiB) ?? 0) + this.unplaced() * laneNeedMiB;
    // A waiting step's room is counted after the steps that came before it, never after later ones:
    // the oldest waiting step that holds always starts once the running steps leave it room. A
    // more urgent step before it keeps its room from `except` even while it may be passed.
    const key = except === undefined ? undefined : this.waiting.get(except)?.priorityKey;
    for (const [mark, step] of this.waiting) {
      if (mark === except) break;
      if (this.holds(step) || (except !== undefined && !mayTakeRoomOf(step.priorityKey, key))) held += step.needMiB;
    }
    return held;
  }

  /** Whether a waiting step holds its need and gates the lane: it has been passed as often as it may be. */
  private holds(step: WaitingStep): boolean {
    return !mayOvertake(step.passed, this.options.overtaking ?? 0);
  }

  /** Whether a waiting step gates reservations. */
  private gated(): boolean {
    for (const step of this.waiting.values()) if (this.holds(step)) return true;
    return this.unplaced() > 0;
  }

  /**
   * Why no slot may be reserved on this reading: '' while a job taken waits to start (not worth
   * saying again and again), the memory refusal, or null: reserve one. Nothing awaits between
   * this and `reserve`.
   */
  reserveRefusal(reading: GpuReading): string | null {
    if (this.full) return '';
    const held = this.held(reading);
    if (this.options.steps !== undefined && this.onGpu && this.gated()) return '';
    if (hasRoom(reading, this.floorMiB / 1024, held / 1024)) return null;
    return `waiting for GPU memory: ${memoryRefusal(reading, this.floorMiB, this.reservedSlots, held)}`;
  }

  reserve(): void {
    this.reservedSlots += 1;
  }

  release(): void {
    this.reservedSlots = Math.max(0, this.reservedSlots - 1);
  }

  /**
   * A step of a job the lane took wants to start, needing `needMiB` (its job's, else the lane's),
   * of Temporal priority key `priorityKey` (its activity's; absent: as urgent as any).
   */
  wait(mark: string, needMiB: number | undefined, priorityKey?: number): number {
    const need = needMiB ?? this.options.laneNeedMiB;
    this.floorMiB = Math.min(this.floorMiB, need);
    this.waiting.set(mark, { needMiB: need, priorityKey, passed: 0 });
    return need;
  }

  /**
   * Start the waiting step `mark` if this reading has room for it (it then counts as running,
   * holding its need until nvidia-smi shows what it allocated): null. Else why it waits. A step
   * needing more than the device has starts once nothing else of the lane runs. `whose` says
   * where the need came from, after it.
   */
  tryStart(mark: string, reading: GpuReading, whose?: string): string | null {
    const need = this.waiting.get(mark)?.needMiB;
    if (need === undefined) return null;
    const held = this.held(reading, mark);
    const steps = this.options.steps;
    // Alone: nothing of the lane runs and no step waits from before it (the steps after it wait for it).
    const alone = (steps?.count ?? 0) === 0 && this.waiting.keys().next().value === mark && this.unplaced() === 0;
    const tooBig = reading.kind === 'gpu' && need > reading.memory.totalMiB;
    const room = reading.kind === 'no-gpu' || hasRoom(reading, need / 1024, held / 1024) || (tooBig && alone);
    if (room) {
      this.passedBy(mark);
      this.waiting.delete(mark);
      steps?.started(mark, need);
      return null;
    }
    const holders = (steps?.count ?? 0) + this.waiting.size - 1 + this.unplaced();
    const more =
      reading.kind === 'gpu' && tooBig
        ? `, more than the device's ${gib(reading.memory.totalMiB)} GiB: it starts once nothing else of the lane runs`
        : '';
    return `waiting for GPU memory: ${memoryRefusal(reading, need, holders, held)}${whose === undefined ? '' : ` (${whose})`}${more}`;
  }

  /** What a step waits for or runs admitted to, in MiB (the lane's per-job need when it brought none). */
  needOf(mark: string): number {
    return this.waiting.get(mark)?.needMiB ?? this.options.steps?.needOf(mark) ?? this.options.laneNeedMiB;
  }

  /** `mark` starts: every step that came before it and still waits was passed once more. */
  private passedBy(mark: string): void {
    for (const [earlier, step] of this.waiting) {
      if (earlier === mark) return;
      step.passed += 1;
    }
  }

  /** A waiting step gave up (it was stopped): true if it was waiting. */
  cancel(mark: string): boolean {
    return this.waiting.delete(mark);
  }
}
