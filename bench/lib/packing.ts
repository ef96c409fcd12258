// How many jobs of mixed memory needs a GPU lane runs at once, on a simulated card: pure, no I/O.
//
// A discrete-time simulation (1 s steps) of one card. Each job allocates a quarter of its peak
// in its first second (CUDA context, model), grows linearly to its peak over its ramp, holds it until it ends,
// then frees it. A job whose growth takes the card past its capacity fails as CUDA OOM does: its
// memory is freed and it goes back to the head of the queue (a retry), and the OOM is counted.
// Three admission policies run the same trace:
// - oracle: first-fit in queue order by the jobs' true peaks (it knows them; nothing else can);
// - candidate oracle: the same by the largest peak of each job's candidate, known from the start:
//   the best any admission by a need per candidate can do, whatever it learns (it cannot know
//   which run of a candidate will peak lower);
// - seed: the Python loop's: every turn (poll 30 s), one launch while nvidia-smi's free memory is
//   at least `min_free_gib`, then the launch gap (30 s);
// - guard: this loop's lane, its own rules (src/workers/lane-admission.ts, as the memory guard
//   applies them): it reads the device every poll and whenever a job ends; it takes the next job
//   while the free memory less what running jobs may still allocate (each up to its need, or its
//   peak seen) leaves room for the smallest need seen, and starts it once there is room for its
//   own need, taking no other job while one waits.
import type { GpuReading } from '../../src/workers/gpu-memory.js';
import { LaneAdmission } from '../../src/workers/lane-admission.js';
import { LaneSteps } from '../../src/workers/lane-steps.js';
import { seededRandom } from './durations.js';

export interface PackingJob {
  readonly candidate: string;
  readonly peakMiB: number;
  readonly durationMs: number;
  /** How long it takes to grow from a quarter of its peak to all of it. */
  readonly rampMs: number;
}

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
  | {
      readonly kind: 'guard';
      /** The lane's per-job need (loop.yaml `min_free_gib`). */
      readonly needGiB: number;
      readonly pollMs: number;
      /**
       * Each job's own need: `margin` times the most an earlier job of its candidate held (what
       * the run rows' `gpu_peak_mib` say, rules/gpu-needs.ts), the lane's need for a candidate not
       * seen yet. Absent: every job needs the lane's.
       */
      readonly learned?: { readonly margin: number };
    };

export interface PackingResult {
  readonly jobs: number;
  readonly makespanMs: number;
  /** Jobs running, averaged over the makespan. */
  readonly meanJobs: number;
  /** The same less the jobs that then failed (OOM): the jobs at once whose work was kept. */
  readonly meanUsefulJobs: number;
  readonly maxJobs: number;
  /** Memory the jobs held, over the card's capacity (total less idle use), averaged over the makespan. */
  readonly memoryUtilisation: number;
  readonly ooms: number;
}

const STEP_MS = 1_000;

interface Running {
  readonly job: PackingJob;
  readonly mark: string;
  readonly startMs: number;
  usedMiB: number;
}

/** What a job holds `elapsedMs` after it started. */
function allocation(job: PackingJob, elapsedMs: number): number {
  const grown = job.rampMs <= 0 ? 1 : Math.min(1, elapsedMs / job.rampMs);
  return Math.round(job.peakMiB * (0.25 + 0.75 * grown));
}

type SeedPolicy = Extract<PackingPolicy, { readonly kind: 'seed' }>;
type GuardPolicy = Extract<PackingPolicy, { readonly kind: 'guard' }>;

/** What the simulation sums up as it steps, for the result. */
interface Tally {
  ooms: number;
  /** Jobs running times step length, summed: over the makespan, the mean jobs at once. */
  jobTime: number;
  /** Memory the jobs held times step length, summed. */
  memoryTime: number;
  /** How long the jobs that failed (OOM) had run, summed: work lost. */
  lostJobTime: number;
  maxJobs: number;
  lastEndMs: number;
}

/** One trace through one policy on one card, a step (STEP_MS) at a time. */
class PackingSimulation {
  private readonly jobs: number;
  private readonly capacity: number;
  private readonly queue: PackingJob[];
  private readonly running: Running[] = [];
  private nowMs = 0;
  private readonly steps = new LaneSteps(() => this.nowMs);
  private readonly admission: LaneAdmission;
  // A job the lane took whose step waits for room (the guard's only; it gates the next).
  private taken: { readonly job: PackingJob; readonly mark: string } | null = null;
  /** Jobs started so far, retries included: the number in each job's mark. */
  private started = 0;
  /** When the seed takes its next turn, or the guard reads the device next. */
  private nextTurnMs = 0;
  // The most each candidate's jobs were seen holding (learned needs), as their rows would say.
  private readonly peaks = new Map<string, number>();
  private readonly tally: Tally = {
    ooms: 0,
    jobTime: 0,
    memoryTime: 0,
    lostJobTime: 0,
    maxJobs: 0,
    lastEndMs: 0,
  };
  // The largest peak of each candidate's jobs in the whole trace (the candidate oracle's knowledge).
  private readonly candidatePeaks = new Map<string, number>();

  constructor(
    trace: readonly PackingJob[],
    private readonly card: Card,
    private readonly policy: PackingPolicy,
    private readonly slots: number,
  ) {
    this.jobs = trace.length;
    this.capacity = card.totalMiB - card.idleUsedMiB;
    this.queue = [...trace];
    for (const job of trace)
      this.candidatePeaks.set(job.candidate, Math.max(this.candidatePeaks.get(job.candidate) ?? 0, job.peakMiB));
    // The lane's processes are the running jobs; a pid is a job's place in `running`.
    this.admission = new LaneAdmission({
      slots,
      laneNeedMiB: policy.kind === 'guard' ? policy.needGiB * 1024 : 0,
      steps: this.steps,
      markOf: (pid) => this.running[pid]?.mark ?? null,
    });
  }

  run(): PackingResult {
    for (;;) {
      const ended = this.endFinished();
      const failed = this.grow();
      if (this.queue.length === 0 && this.running.length === 0 && this.taken === null) break;
      // A job admitted now allocates from the next step on (its growth checked as any other's).
      this.admit(ended || failed);
      this.tallyStep();
      this.nowMs += STEP_MS;
      if (this.nowMs > 1000 * 24 * 3600 * 1000) throw new Error('packing simulation did not finish within 1,000 days');
    }
    return this.result();
  }

  private usedNow(): number {
    return this.running.reduce((sum, r) => sum + r.usedMiB, 0);
  }

  /** End the jobs whose time is up; whether any did. */
  private endFinished(): boolean {
    let ended = false;
    for (const entry of [...this.running]) {
      if (this.nowMs - entry.startMs >= entry.job.durationMs) {
        this.finish(entry, true);
        this.tally.lastEndMs = this.nowMs;
        ended = true;
      }
    }
    return ended;
  }

  /** Grow every job to this step's allocation; whether any failed (OOM). */
  private grow(): boolean {
    // Growth, oldest first; the job whose growth does not fit fails as CUDA OOM.
    let failed = false;
    let used = this.usedNow();
    for (const entry of [...this.running]) {
      const next = allocation(entry.job, this.nowMs - entry.startMs);
      if (used - entry.usedMiB + next > this.capacity) {
        used -= entry.usedMiB;
        this.failOutOfMemory(entry);
        failed = true;
        continue;
      }
      used += next - entry.usedMiB;
      entry.usedMiB = next;
    }
    return failed;
  }

  /** As CUDA OOM: the job's memory is freed and it goes back to the head of the queue. */
  private failOutOfMemory(entry: Running): void {
    this.finish(entry, false);
    this.queue.unshift(entry.job);
    this.tally.ooms += 1;
    this.tally.lostJobTime += this.nowMs - entry.startMs;
  }

  private tallyStep(): void {
    this.tally.maxJobs = Math.max(this.tally.maxJobs, this.running.length);
    this.tally.jobTime += this.running.length * STEP_MS;
    this.tally.memoryTime += this.usedNow() * STEP_MS;
  }

  private result(): PackingResult {
    const makespanMs = this.tally.lastEndMs;
    return {
      jobs: this.jobs,
      makespanMs,
      meanJobs: makespanMs === 0 ? 0 : this.tally.jobTime / makespanMs,
      meanUsefulJobs: makespanMs === 0 ? 0 : (this.tally.jobTime - this.tally.lostJobTime) / makespanMs,
      maxJobs: this.tally.maxJobs,
      memoryUtilisation: makespanMs === 0 ? 0 : this.tally.memoryTime / (this.capacity * makespanMs),
      ooms: this.tally.ooms,
    };
  }

  /** The job's own need (learned from its candidate's peaks), or undefined for the lane's. */
  private needOf(job: PackingJob): number | undefined {
    if (this.policy.kind !== 'guard' || !this.policy.learned) return undefined;
    const peak = this.peaks.get(job.candidate);
    return peak === undefined ? undefined : Math.ceil(peak * this.policy.learned.margin);
  }

  private nextMark(): string {
    this.started += 1;
    return `job-${this.started}`;
  }

  private start(job: PackingJob, mark = this.nextMark()): void {
    this.running.push({ job, mark, startMs: this.nowMs, usedMiB: 0 });
  }

  /** Take a job off the card, ended (`completed`) or failed; the guard learns its peak. */
  private finish(entry: Running, completed: boolean): void {
    this.running.splice(this.running.indexOf(entry), 1);
    if (this.policy.kind !== 'guard') return;
    const use = this.steps.ended(entry.mark);
    this.admission.release();
    // As rules/gpu-needs.ts notes a run's peak: a job that failed (OOM) may have ended before its
    // peak, so it raises a known peak and never sets the first.
    const known = this.peaks.get(entry.job.candidate);
    if (use && (completed || known !== undefined))
      this.peaks.set(entry.job.candidate, Math.max(known ?? 0, use.peakMiB));
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

  /** Start what the policy starts this step; `ended`: a job left the card this step. */
  private admit(ended: boolean): void {
    const policy = this.policy;
    switch (policy.kind) {
      case 'oracle':
        return this.admitOracle(policy.knows ?? 'run');
      case 'seed':
        return this.admitSeed(policy);
      case 'guard':
        return this.admitGuard(policy, ended);
    }
  }

  /** First-fit in queue order by the jobs' true peaks, or by their candidates' largest. */
  private admitOracle(knows: 'run' | 'candidate'): void {
    const peakOf = (job: PackingJob): number =>
      knows === 'run' ? job.peakMiB : (this.candidatePeaks.get(job.candidate) as number);
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

  private admitGuard(policy: GuardPolicy, ended: boolean): void {
    // The guard reads every poll, and at once when a slot is released.
    if (this.nowMs < this.nextTurnMs && !ended) return;
    if (this.nowMs >= this.nextTurnMs) this.nextTurnMs = this.nowMs + policy.pollMs;
    for (;;) if (!this.guardMove()) return;
  }

  /** One move of the guard's lane on the reading now: start the job taken, or take the next; false if neither. */
  private guardMove(): boolean {
    if (this.taken !== null) {
      // The job taken starts once there is room for its own need, or nothing more happens.
      if (this.admission.tryStart(this.taken.mark, this.reading()) !== null) return false;
      this.start(this.taken.job, this.taken.mark);
      this.taken = null;
      return true;
    }
    if (this.queue.length === 0 || this.admission.reserveRefusal(this.reading()) !== null) return false;
    this.admission.reserve();
    const job = this.queue.shift() as PackingJob;
    const mark = this.nextMark();
    this.admission.wait(mark, this.needOf(job));
    this.taken = { job, mark };
    return true;
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

/** Candidates of mixed needs (6 to 45 GiB) and lengths, a round of each at a time, durations and ramps drawn (seeded). */
export function packingTrace(rounds: number, seed: number): PackingJob[] {
  const candidates = [
    { name: 'tiny', peakGiB: 6, minutes: 12 },
    { name: 'small', peakGiB: 9, minutes: 15 },
    { name: 'narrow', peakGiB: 12, minutes: 18 },
    { name: 'base', peakGiB: 16, minutes: 20 },
    { name: 'wide', peakGiB: 21, minutes: 24 },
    { name: 'deep', peakGiB: 27, minutes: 28 },
    { name: 'large', peakGiB: 36, minutes: 34 },
    { name: 'huge', peakGiB: 45, minutes: 40 },
  ];
  const random = seededRandom(seed);
  const jobs: PackingJob[] = [];
  for (let round = 0; round < rounds; round += 1) {
    for (const candidate of candidates) {
      jobs.push({
        candidate: candidate.name,
        // A run's peak varies a little with its batches (within 5% below its candidate's).
        peakMiB: Math.round(candidate.peakGiB * 1024 * (0.95 + 0.05 * random())),
        durationMs: Math.round(candidate.minutes * 60_000 * (0.75 + 0.5 * random())),
        rampMs: Math.round(20_000 + 100_000 * random()),
      });
    }
  }
  return jobs;
}
