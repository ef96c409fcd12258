// How many jobs of mixed memory needs a GPU lane runs at once, on a simulated card: pure, no I/O.
//
// A discrete-time simulation (1 s steps) of one card. Each job allocates a quarter of its peak
// in its first second (CUDA context, model), grows linearly to its peak over its ramp, holds it until it ends,
// then frees it. A job whose growth takes the card past its capacity fails as CUDA OOM does: its
// memory is freed and it goes back to the head of the queue (a retry), and the OOM is counted.
// Three admission policies run the same trace:
// - oracle: first-fit in queue order by the jobs' true peaks (it knows them; nothing else can);
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
  | { readonly kind: 'oracle' }
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

/** Run `trace` (in its order) through `policy` on `card` with at most `slots` jobs at once. */
export function simulatePacking(
  trace: readonly PackingJob[],
  card: Card,
  policy: PackingPolicy,
  slots: number,
): PackingResult {
  const capacity = card.totalMiB - card.idleUsedMiB;
  const queue = [...trace];
  const running: Running[] = [];
  let nowMs = 0;
  const steps = new LaneSteps(() => nowMs);
  // The lane's processes are the running jobs; a pid is a job's place in `running`.
  const admission = new LaneAdmission({
    slots,
    laneNeedMiB: policy.kind === 'guard' ? policy.needGiB * 1024 : 0,
    steps,
    markOf: (pid) => running[pid]?.mark ?? null,
  });
  // A job the lane took whose step waits for room (the guard's only; it gates the next).
  let taken: { readonly job: PackingJob; readonly mark: string } | null = null;
  let started = 0;
  let ooms = 0;
  let jobTime = 0;
  let memoryTime = 0;
  let maxJobs = 0;
  let nextTurnMs = 0;
  let lastEndMs = 0;
  const usedNow = () => running.reduce((sum, r) => sum + r.usedMiB, 0);
  // The most each candidate's jobs were seen holding (learned needs), as their rows would say.
  const peaks = new Map<string, number>();
  const needOf = (job: PackingJob): number | undefined => {
    if (policy.kind !== 'guard' || !policy.learned) return undefined;
    const peak = peaks.get(job.candidate);
    return peak === undefined ? undefined : Math.ceil(peak * policy.learned.margin);
  };
  const nextMark = (): string => {
    started += 1;
    return `job-${started}`;
  };
  const start = (job: PackingJob, mark = nextMark()): void => {
    running.push({ job, mark, startMs: nowMs, usedMiB: 0 });
  };
  const finish = (entry: Running, completed: boolean): void => {
    running.splice(running.indexOf(entry), 1);
    if (policy.kind !== 'guard') return;
    const use = steps.ended(entry.mark);
    admission.release();
    // As rules/gpu-needs.ts notes a run's peak: a job that failed (OOM) may have ended before its
    // peak, so it raises a known peak and never sets the first.
    const known = peaks.get(entry.job.candidate);
    if (use && (completed || known !== undefined)) peaks.set(entry.job.candidate, Math.max(known ?? 0, use.peakMiB));
  };
  const reading = (): GpuReading => {
    const used = card.idleUsedMiB + usedNow();
    return {
      kind: 'gpu',
      memory: { index: 0, totalMiB: card.totalMiB, usedMiB: used, freeMiB: card.totalMiB - used },
      processes: running.map((entry, pid) => ({ pid, usedMiB: entry.usedMiB })),
    };
  };
  const admit = (ended: boolean): void => {
    switch (policy.kind) {
      case 'oracle': {
        let peaks = running.reduce((sum, r) => sum + r.job.peakMiB, 0);
        while (queue.length > 0 && running.length < slots && peaks + (queue[0] as PackingJob).peakMiB <= capacity) {
          const job = queue.shift() as PackingJob;
          peaks += job.peakMiB;
          start(job);
        }
        return;
      }
      case 'seed': {
        // Nothing wakes the Python loop when a job ends: it looks on its own turns only.
        if (nowMs < nextTurnMs) return;
        const free = card.totalMiB - card.idleUsedMiB - usedNow();
        if (queue.length > 0 && running.length < slots && free >= policy.minFreeGiB * 1024) {
          start(queue.shift() as PackingJob);
          nextTurnMs = nowMs + policy.launchGapMs;
        } else nextTurnMs = nowMs + policy.pollMs;
        return;
      }
      case 'guard': {
        // The guard reads every poll, and at once when a slot is released.
        if (nowMs < nextTurnMs && !ended) return;
        if (nowMs >= nextTurnMs) nextTurnMs = nowMs + policy.pollMs;
        for (;;) {
          if (taken !== null) {
            // The job taken starts once there is room for its own need, or nothing more happens.
            if (admission.tryStart(taken.mark, reading()) !== null) return;
            start(taken.job, taken.mark);
            taken = null;
          } else if (queue.length > 0 && admission.reserveRefusal(reading()) === null) {
            admission.reserve();
            const job = queue.shift() as PackingJob;
            const mark = nextMark();
            admission.wait(mark, needOf(job));
            taken = { job, mark };
          } else return;
        }
      }
    }
  };

  for (;;) {
    let ended = false;
    for (const entry of [...running]) {
      if (nowMs - entry.startMs >= entry.job.durationMs) {
        finish(entry, true);
        lastEndMs = nowMs;
        ended = true;
      }
    }
    // Growth, oldest first; the job whose growth does not fit fails as CUDA OOM.
    let used = usedNow();
    for (const entry of [...running]) {
      const next = allocation(entry.job, nowMs - entry.startMs);
      if (used - entry.usedMiB + next > capacity) {
        finish(entry, false);
        used -= entry.usedMiB;
        queue.unshift(entry.job);
        ooms += 1;
        ended = true;
        continue;
      }
      used += next - entry.usedMiB;
      entry.usedMiB = next;
    }
    if (queue.length === 0 && running.length === 0 && taken === null) break;
    // A job admitted now allocates from the next step on (its growth checked as any other's).
    admit(ended);
    maxJobs = Math.max(maxJobs, running.length);
    jobTime += running.length * STEP_MS;
    memoryTime += usedNow() * STEP_MS;
    nowMs += STEP_MS;
    if (nowMs > 1000 * 24 * 3600 * 1000) throw new Error('packing simulation did not finish within 1,000 days');
  }
  const makespanMs = lastEndMs;
  return {
    jobs: trace.length,
    makespanMs,
    meanJobs: makespanMs === 0 ? 0 : jobTime / makespanMs,
    maxJobs,
    memoryUtilisation: makespanMs === 0 ? 0 : memoryTime / (capacity * makespanMs),
    ooms,
  };
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
