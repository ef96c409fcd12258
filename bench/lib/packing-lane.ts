// This loop's GPU lane in the packing simulation: its own rules (src/workers/lane-admission.ts
// with LaneSteps, as its memory guard applies them; the needs of src/rules/gpu-needs.ts; the
// out-of-memory recovery of src/activities/support/loop-step.ts). Pure, no I/O.
//
// It reads the device every poll and whenever a step ends; it takes the next job while the free
// memory less what running steps may still allocate (each up to its need, or its peak seen)
// leaves room for the smallest need seen, and starts its step once there is room for its own
// need, taking no other job while one waits. A step that runs out of memory keeps its slot and
// waits again, by the need oomDecision gives it, up to `retries.oom` times; a training resumes
// from its newest checkpoint, so only the work since then is lost.
import { DEFAULT_OOM_RETRIES } from '../../src/contract/lane-job.js';
import { oomDecision } from '../../src/rules/gpu-needs.js';
import type { GpuReading } from '../../src/workers/gpu-memory.js';
import { LaneAdmission } from '../../src/workers/lane-admission.js';
import { LaneSteps } from '../../src/workers/lane-steps.js';
import { LearnedNeeds } from './packing-needs.js';
import { priorityOf, type PackingJob } from './packing-trace.js';

export interface LanePolicy {
  readonly kind: 'guard';
  /** The lane's per-job need (loop.yaml `min_free_gib`). */
  readonly needGiB: number;
  readonly pollMs: number;
  /**
   * Each step's own need: `margin` times the most earlier steps of its candidate and kind held
   * (what the run rows and reports say, rules/gpu-needs.ts), the lane's need for a candidate not
   * seen yet. Absent: every step needs the lane's.
   */
  readonly learned?: { readonly margin: number };
  /** The lane's `overtaking` (lane-admission.ts): how many later steps may start before a waiting one. */
  readonly overtaking?: number;
  /**
   * Withhold each step's priority key from the lane (as before it read its activity's): a later
   * step may then take the room of a more urgent one that waits. Only a comparison row sets it.
   */
  readonly priorityBlind?: boolean;
}

/** One run of a job's step on the lane: its first, or one after an out-of-memory. */
export interface LaneRun {
  readonly job: PackingJob;
  /** The step's mark, as its processes carry it. */
  readonly mark: string;
  /** What it was admitted by. */
  readonly needMiB: number;
  /** How long this run takes. */
  readonly runMs: number;
  /** Work its earlier runs kept (a training's checkpoints). */
  readonly doneMs: number;
  /** Out-of-memory retries it has had. */
  readonly retries: number;
  /** When it began to wait for room. */
  readonly waitingSinceMs: number;
}

/** What the lane needs of the simulated card and its queue. */
export interface LaneHost {
  readonly nowMs: () => number;
  readonly reading: () => GpuReading;
  readonly markOf: (pid: number) => string | null;
  /** The next job in the lane's queue, taken off it. */
  readonly next: () => PackingJob | undefined;
  readonly queued: () => number;
  readonly start: (run: LaneRun) => void;
}

/** A resumed training starts its process and loads its checkpoint again before it trains on. */
const RESUME_MS = 30_000;

export class PackingLane {
  private readonly steps: LaneSteps;
  private readonly admission: LaneAdmission;
  private readonly needs: LearnedNeeds | null;
  private readonly priorityBlind: boolean;
  /** Steps of jobs the lane took, waiting for room, oldest first. */
  private readonly waiting: LaneRun[] = [];
  /** Runs so far: the number in each mark. */
  private runs = 0;
  /** The longest a step waited for room to start. */
  longestWaitMs = 0;

  constructor(
    policy: LanePolicy,
    slots: number,
    private readonly totalMiB: number,
    private readonly host: LaneHost,
  ) {
    this.steps = new LaneSteps(host.nowMs);
    this.needs = policy.learned ? new LearnedNeeds(policy.learned.margin) : null;
    this.priorityBlind = policy.priorityBlind === true;
    this.admission = new LaneAdmission({
      slots,
      laneNeedMiB: policy.needGiB * 1024,
      steps: this.steps,
      markOf: host.markOf,
      overtaking: policy.overtaking ?? 0,
    });
  }

  /** The step's priority key, as a lane reads its activity's (step-priority.ts). */
  private priorityKey(job: PackingJob): number | undefined {
    return this.priorityBlind ? undefined : priorityOf(job);
  }

  private nextMark(): string {
    this.runs += 1;
    return `run-${this.runs}`;
  }

  /** The guard's turn: it reads the device (each step's peak is seen), then starts and takes what it may. */
  admit(): void {
    this.admission.held(this.host.reading());
    while (this.move());
  }

  /** One move on the reading now: start a waiting step, or take the next job; false if neither. */
  private move(): boolean {
    for (const run of this.waiting) {
      if (this.admission.tryStart(run.mark, this.host.reading()) !== null) continue;
      this.waiting.splice(this.waiting.indexOf(run), 1);
      this.longestWaitMs = Math.max(this.longestWaitMs, this.host.nowMs() - run.waitingSinceMs);
      this.host.start(run);
      return true;
    }
    if (this.host.queued() === 0 || this.admission.reserveRefusal(this.host.reading()) !== null) return false;
    this.admission.reserve();
    const job = this.host.next() as PackingJob;
    const mark = this.nextMark();
    const needMiB = this.admission.wait(mark, this.needs?.needOf(job), this.priorityKey(job));
    this.waiting.push({
      job,
      mark,
      needMiB,
      runMs: job.durationMs,
      doneMs: 0,
      retries: 0,
      waitingSinceMs: this.host.nowMs(),
    });
    return true;
  }

  /** A run ended its job's step: its slot is released and its peak learned. */
  ended(run: LaneRun): void {
    const use = this.steps.ended(run.mark);
    this.admission.release();
    if (use) this.needs?.noted(run.job, use.peakMiB, true);
  }

  /**
   * A run ran out of memory `elapsedMs` in, its last allocation asking for `askedMiB`: whether
   * its step waits again (else it failed, and its slot is released) and the work lost.
   */
  outOfMemory(
    run: LaneRun,
    askedMiB: number,
    elapsedMs: number,
  ): { readonly retried: boolean; readonly lostMs: number } {
    const use = this.steps.ended(run.mark);
    if (use) this.needs?.noted(run.job, use.peakMiB, false);
    const decision = oomDecision({
      needMiB: run.needMiB,
      peakMiB: use?.peakMiB ?? 0,
      askedMiB,
      shared: use?.shared ?? null,
      retries: run.retries,
      limit: DEFAULT_OOM_RETRIES,
      totalMiB: this.totalMiB,
    });
    if (!decision.retry) {
      this.admission.release();
      return { retried: false, lostMs: elapsedMs };
    }
    const worked = run.doneMs + elapsedMs;
    const every = run.job.checkpointMs ?? 0;
    const kept =
      every <= 0 ? 0 : Math.min(run.job.durationMs, Math.max(run.doneMs, Math.floor(worked / every) * every));
    const mark = this.nextMark();
    const needMiB = this.admission.wait(mark, decision.need.mib, this.priorityKey(run.job));
    const runMs = run.job.durationMs - kept + (kept > 0 ? RESUME_MS : 0);
    this.waiting.push({
      job: run.job,
      mark,
      needMiB,
      runMs,
      doneMs: kept,
      retries: run.retries + 1,
      waitingSinceMs: this.host.nowMs(),
    });
    return { retried: true, lostMs: worked - kept };
  }
}
