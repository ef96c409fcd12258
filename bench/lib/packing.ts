// How many jobs of mixed memory needs a GPU lane runs at once, on a simulated card: pure, no I/O.
//
// A discrete-time simulation (1 s steps) of one card running a trace (packing-trace.ts): each job
// is one lane step, queued once the jobs it comes after have ended, in its kind's priority order.
// A step allocates a quarter of its peak in its first second (CUDA context, model), grows linearly
// to its peak over its ramp, holds it until it ends, then frees it. A step whose growth takes the
// card past its capacity runs out of memory as CUDA does: its memory is freed at once.
// Three admission policies run the same trace:
// - oracle: first-fit in queue order by the jobs' true peaks (it knows them; nothing else can);
// - candidate oracle: the same by the largest peak of each job's candidate (per kind of step),
//   known from the start: the best any admission by a need per candidate can do, whatever it
//   learns (it cannot know which run of a candidate will peak lower);
// - seed: the Python loop's: every turn (poll 30 s), one launch while nvidia-smi's free memory is
//   at least `min_free_gib`, then the launch gap (30 s). An out-of-memory fails its step there
//   (`train_failed`); here it runs again from the start at the head of the queue, so the
//   makespans compare, and its time is counted as work lost;
// - guard: this loop's lane, its own rules (packing-lane.ts).
import type { GpuReading } from '../../src/workers/gpu-memory.js';
import { PackingLane, type LaneRun, type LanePolicy } from './packing-lane.js';
import { kindOf, priorityOf, type PackingJob } from './packing-trace.js';

export { packingTrace, type PackingJob } from './packing-trace.js';

export interface Card {
  readonly name: string;
  readonly totalMiB: number;
  /** What the driver holds on an idle card (nvidia-smi's used memory with nothing running). */
  readonly idleUsedMiB: number;
}

export type PackingPolicy =
  | {
      readonly kind: 'oracle';
      /** What it admits by: each job's own peak (default), or its candidate's largest. */
      readonly knows?: 'run' | 'candidate';
    }
  | { readonly kind: 'seed'; readonly minFreeGiB: number; readonly pollMs: number; readonly launchGapMs: number }
  | LanePolicy;

export interface PackingResult {
  readonly jobs: number;
  readonly makespanMs: number;
  /** Jobs running, averaged over the makespan. */
  readonly meanJobs: number;
  /** The same less the work lost to out-of-memory (since a training's last checkpoint; all of any other step's). */
  readonly meanUsefulJobs: number;
  readonly maxJobs: number;
  /** Memory the jobs held, over the card's capacity (total less idle use), averaged over the makespan. */
  readonly memoryUtilisation: number;
  /** Every CUDA out-of-memory. */
  readonly ooms: number;
  /** Out-of-memories the step waited out and ran again (the lane's recovery). */
  readonly oomWaits: number;
  /** Steps an out-of-memory failed: the lane's that oomDecision ran no more; every one in the seed. */
  readonly oomFailed: number;
  /** The lane's: the longest a step it took waited for room to start (how long a big step may starve); 0 for the others. */
  readonly longestWaitMs: number;
  /** Reserve checks (they hold their generation's decision): the longest and the mean from queued to started. */
  readonly reserveWaitLongestMs: number;
  readonly reserveWaitMeanMs: number;
}

const STEP_MS = 1_000;

/** A step on the card: one run of a job (a step the lane ran again after an out-of-memory is a new run). */
interface Running extends LaneRun {
  readonly startMs: number;
  usedMiB: number;
}

/** What a job's run holds `elapsedMs` after it started. */
function allocation(job: PackingJob, elapsedMs: number): number {
  const grown = job.rampMs <= 0 ? 1 : Math.min(1, elapsedMs / job.rampMs);
  return Math.round(job.peakMiB * (0.25 + 0.75 * grown));
}

type SeedPolicy = Extract<PackingPolicy, { readonly kind: 'seed' }>;

/** What the simulation sums up as it steps, for the result. */
interface Tally {
  ooms: number;
  oomWaits: number;
  oomFailed: number;
  /** Jobs running times step length, summed: over the makespan, the mean jobs at once. */
  jobTime: number;
  /** Memory the jobs held times step length, summed. */
  memoryTime: number;
  /** Work the out-of-memories threw away, summed. */
  lostJobTime: number;
  maxJobs: number;
  lastEndMs: number;
}

/** One trace through one policy on one card, a step (STEP_MS) at a time. */
class PackingSimulation {
  private readonly capacity: number;
  /** Jobs queued (the jobs they come after have ended), in the lane's order. */
  private readonly queue: PackingJob[] = [];
  readonly running: Running[] = [];
  nowMs = 0;
  /** Jobs not ended yet: the simulation stops at none. */
  private unfinished: number;
  /** Each queued-later job's jobs still to end, and who comes after each job. */
  private readonly blockers = new Map<PackingJob, number>();
  private readonly dependents = new Map<string, PackingJob[]>();
  private readonly order = new Map<PackingJob, number>();
  /** When each job was queued, until its first run starts; then how long each reserve check waited. */
  private readonly queuedAtMs = new Map<PackingJob, number>();
  private readonly reserveWaitsMs: number[] = [];
  /** When the seed takes its next turn, or the lane reads the device next. */
  private nextTurnMs = 0;
  private readonly lane: PackingLane | null;
  private readonly tally: Tally = {
    ooms: 0,
    oomWaits: 0,
    oomFailed: 0,
    jobTime: 0,
    memoryTime: 0,
    lostJobTime: 0,
    maxJobs: 0,
    lastEndMs: 0,
  };
  // The largest peak of each candidate's steps of each kind in the whole trace (the candidate oracle's knowledge).
  private readonly candidatePeaks = new Map<string, number>();

  constructor(
    private readonly trace: readonly PackingJob[],
    private readonly card: Card,
    private readonly policy: PackingPolicy,
    private readonly slots: number,
  ) {
    this.capacity = card.totalMiB - card.idleUsedMiB;
    this.unfinished = trace.length;
    for (const [index, job] of trace.entries()) {
      this.order.set(job, index);
      const key = this.candidateKey(job);
      this.candidatePeaks.set(key, Math.max(this.candidatePeaks.get(key) ?? 0, job.peakMiB));
      const after = job.after ?? [];
      for (const id of after) this.dependents.set(id, [...(this.dependents.get(id) ?? []), job]);
      if (after.length === 0) {
        this.queue.push(job);
        this.queuedAtMs.set(job, 0);
      } else this.blockers.set(job, after.length);
    }
    this.queue.sort((a, b) => this.before(a, b));
    this.lane =
      policy.kind === 'guard'
        ? new PackingLane(policy, slots, card.totalMiB, {
            nowMs: () => this.nowMs,
            reading: () => this.reading(),
            markOf: (pid) => this.running[pid]?.mark ?? null,
            next: () => this.queue.shift(),
            queued: () => this.queue.length,
            start: (run) => {
              this.firstStarted(run.job);
              this.running.push({ ...run, startMs: this.nowMs, usedMiB: 0 });
            },
          })
        : null;
  }

  run(): PackingResult {
    for (;;) {
      const ended = this.endFinished();
      const failed = this.grow();
      if (this.unfinished === 0) break;
      // A job admitted now allocates from the next step on (its growth checked as any other's).
      this.admit(ended || failed);
      this.tallyStep();
      this.nowMs += STEP_MS;
      if (this.nowMs > 1000 * 24 * 3600 * 1000) throw new Error('packing simulation did not finish within 1,000 days');
    }
    return this.result();
  }

  private candidateKey(job: PackingJob): string {
    return `${kindOf(job)}:${job.candidate}`;
  }

  /** The lane's queue order: the kind's priority, then the trace's order. */
  private before(a: PackingJob, b: PackingJob): number {
    return priorityOf(a) - priorityOf(b) || (this.order.get(a) ?? 0) - (this.order.get(b) ?? 0);
  }

  private enqueue(job: PackingJob): void {
    this.queuedAtMs.set(job, this.nowMs);
    const at = this.queue.findIndex((queued) => this.before(job, queued) < 0);
    if (at < 0) this.queue.push(job);
    else this.queue.splice(at, 0, job);
  }

  /** A job ended (done, or failed for good): the jobs that came after it only may be queued. */
  private jobEnded(job: PackingJob): void {
    this.unfinished -= 1;
    this.tally.lastEndMs = this.nowMs;
    for (const next of this.dependents.get(job.id ?? '') ?? []) {
      const left = (this.blockers.get(next) ?? 1) - 1;
      this.blockers.set(next, left);
      if (left === 0) this.enqueue(next);
    }
  }

  private usedNow(): number {
    return this.running.reduce((sum, r) => sum + r.usedMiB, 0);
  }

  /** End the runs whose time is up; whether any did. */
  private endFinished(): boolean {
    let ended = false;
    for (const entry of [...this.running]) {
      if (this.nowMs - entry.startMs >= entry.runMs) {
        this.running.splice(this.running.indexOf(entry), 1);
        this.lane?.ended(entry);
        this.jobEnded(entry.job);
        ended = true;
      }
    }
    return ended;
  }

  /** Grow every run to this step's allocation; whether any ran out of memory. */
  private grow(): boolean {
    // Growth, oldest first; the run whose growth does not fit runs out of memory, as CUDA does.
    let failed = false;
    let used = this.usedNow();
    for (const entry of [...this.running]) {
      const next = allocation(entry.job, this.nowMs - entry.startMs);
      if (used - entry.usedMiB + next > this.capacity) {
        used -= entry.usedMiB;
        this.outOfMemory(entry, next - entry.usedMiB);
        failed = true;
        continue;
      }
      used += next - entry.usedMiB;
      entry.usedMiB = next;
    }
    return failed;
  }

  /** Its memory is freed; the lane decides what comes of the step, the others run it again from the start. */
  private outOfMemory(entry: Running, askedMiB: number): void {
    this.running.splice(this.running.indexOf(entry), 1);
    this.tally.ooms += 1;
    const elapsedMs = this.nowMs - entry.startMs;
    if (this.lane === null) {
      this.tally.oomFailed += 1;
      this.tally.lostJobTime += elapsedMs;
      this.queue.unshift(entry.job);
      return;
    }
    const outcome = this.lane.outOfMemory(entry, askedMiB, elapsedMs);
    this.tally.lostJobTime += outcome.lostMs;
    if (outcome.retried) this.tally.oomWaits += 1;
    else {
      this.tally.oomFailed += 1;
      this.jobEnded(entry.job);
    }
  }

  private tallyStep(): void {
    this.tally.maxJobs = Math.max(this.tally.maxJobs, this.running.length);
    this.tally.jobTime += this.running.length * STEP_MS;
    this.tally.memoryTime += this.usedNow() * STEP_MS;
  }

  private result(): PackingResult {
    const makespanMs = this.tally.lastEndMs;
    const { ooms, oomWaits, oomFailed } = this.tally;
    return {
      jobs: this.trace.length,
      makespanMs,
      meanJobs: makespanMs === 0 ? 0 : this.tally.jobTime / makespanMs,
      meanUsefulJobs: makespanMs === 0 ? 0 : (this.tally.jobTime - this.tally.lostJobTime) / makespanMs,
      maxJobs: this.tally.maxJobs,
      memoryUtilisation: makespanMs === 0 ? 0 : this.tally.memoryTime / (this.capacity * makespanMs),
      ooms,
      oomWaits,
      oomFailed,
      longestWaitMs: this.lane?.longestWaitMs ?? 0,
      reserveWaitLongestMs: Math.max(0, ...this.reserveWaitsMs),
      reserveWaitMeanMs:
        this.reserveWaitsMs.length === 0
          ? 0
          : this.reserveWaitsMs.reduce((sum, ms) => sum + ms, 0) / this.reserveWaitsMs.length,
    };
  }

  /** A job's run starts: its first one ends its wait in the queue. */
  private firstStarted(job: PackingJob): void {
    const queuedAt = this.queuedAtMs.get(job);
    if (queuedAt === undefined) return;
    this.queuedAtMs.delete(job);
    if (kindOf(job) === 'reserve') this.reserveWaitsMs.push(this.nowMs - queuedAt);
  }

  /** A first run of `job`, for the oracle and the seed. */
  private start(job: PackingJob): void {
    this.firstStarted(job);
    this.running.push({
      job,
      mark: '',
      needMiB: 0,
      runMs: job.durationMs,
      doneMs: 0,
      retries: 0,
      waitingSinceMs: this.nowMs,
      startMs: this.nowMs,
      usedMiB: 0,
    });
  }

  /** The card as nvidia-smi would show it now. */
  private reading(): GpuReading {
    const used = this.card.idleUsedMiB + this.usedNow();
    return {
      kind: 'gpu',
      memory: { index: 0, totalMiB: this.card.totalMiB, usedMiB: used, freeMiB: this.card.totalMiB - used },
      processes: this.running.map((entry, pid) => ({ pid, usedMiB: entry.usedMiB })),
    };
  }

  /** Start what the policy starts this step; `ended`: a run left the card this step. */
  private admit(ended: boolean): void {
    const policy = this.policy;
    switch (policy.kind) {
      case 'oracle':
        return this.admitOracle(policy.knows ?? 'run');
      case 'seed':
        return this.admitSeed(policy);
      case 'guard': {
        // The guard reads every poll, and at once when a slot is released.
        if (this.nowMs < this.nextTurnMs && !ended) return;
        if (this.nowMs >= this.nextTurnMs) this.nextTurnMs = this.nowMs + policy.pollMs;
        return this.lane?.admit();
      }
    }
  }

  /** First-fit in queue order by the jobs' true peaks, or by their candidates' largest. */
  private admitOracle(knows: 'run' | 'candidate'): void {
    const peakOf = (job: PackingJob): number =>
      knows === 'run' ? job.peakMiB : (this.candidatePeaks.get(this.candidateKey(job)) as number);
    let peaks = this.running.reduce((sum, r) => sum + peakOf(r.job), 0);
    while (
      this.queue.length > 0 &&
      this.running.length < this.slots &&
      peaks + peakOf(this.queue[0] as PackingJob) <= this.capacity
    ) {
      const job = this.queue.shift() as PackingJob;
      peaks += peakOf(job);
      this.start(job);
    }
  }

  private admitSeed(policy: SeedPolicy): void {
    // Nothing wakes the Python loop when a job ends: it looks on its own turns only.
    if (this.nowMs < this.nextTurnMs) return;
    const free = this.card.totalMiB - this.card.idleUsedMiB - this.usedNow();
    if (this.queue.length > 0 && this.running.length < this.slots && free >= policy.minFreeGiB * 1024) {
      this.start(this.queue.shift() as PackingJob);
      this.nextTurnMs = this.nowMs + policy.launchGapMs;
    } else this.nextTurnMs = this.nowMs + policy.pollMs;
  }
}

/** Run `trace` (in its order) through `policy` on `card` with at most `slots` jobs at once. */
export function simulatePacking(
  trace: readonly PackingJob[],
  card: Card,
  policy: PackingPolicy,
  slots: number,
): PackingResult {
  return new PackingSimulation(trace, card, policy, slots).run();
}
