// What a generation runs on a GPU lane, as the packing bench simulates it: pure, seeded, no I/O.
//
// Each round of eight candidates trains each once; each training's checkpoint is then evaluated
// on the test role; once the round's evaluations are in, the champion's checkpoint is checked on
// the reserve, and a teacher is built from three of the round's runs (each member evaluated, one
// after another) and scored as one ensemble (its members loaded side by side). A step's queue
// order is its kind's Temporal priority (src/workflows/step-priority.ts), then its place in the trace.
import { STEP_PRIORITY, type StepKind } from '../../src/workflows/step-priority.js';
import { seededRandom } from './durations.js';

/** The kinds of step the trace holds: the lane's (step-priority.ts), the ensemble's evaluation apart. */
export type PackingKind = 'training' | 'evaluation' | 'reserve' | 'teacher' | 'ensemble';

export interface PackingJob {
  /** What the job's need is learned under: its candidate (an ensemble's: its members'). */
  readonly candidate: string;
  readonly peakMiB: number;
  readonly durationMs: number;
  /** How long it takes to grow from a quarter of its peak to all of it. */
  readonly rampMs: number;
  /** Absent: a training. */
  readonly kind?: PackingKind;
  /** Names it for `after`; absent: its place in the trace. */
  readonly id?: string;
  /** The jobs that must end before this one is queued (the workflow starts it after them). */
  readonly after?: readonly string[];
  /** An ensemble's members' candidates: its need is theirs together (rules/gpu-needs.ts). */
  readonly members?: readonly string[];
  /** A training's checkpoint interval: after an out-of-memory it resumes from its newest checkpoint. */
  readonly checkpointMs?: number;
}

export const kindOf = (job: PackingJob): PackingKind => job.kind ?? 'training';

const LANE_KIND: Readonly<Record<PackingKind, StepKind>> = {
  training: 'training',
  evaluation: 'evaluation',
  reserve: 'reserve',
  teacher: 'teacher',
  ensemble: 'evaluation',
};

/** Where a job stands in its lane's queue: smaller first (Temporal's priority key). */
export const priorityOf = (job: PackingJob): number => STEP_PRIORITY[LANE_KIND[kindOf(job)]];

const CANDIDATES = [
  { name: 'tiny', peakGiB: 6, minutes: 12 },
  { name: 'small', peakGiB: 9, minutes: 15 },
  { name: 'narrow', peakGiB: 12, minutes: 18 },
  { name: 'base', peakGiB: 16, minutes: 20 },
  { name: 'wide', peakGiB: 21, minutes: 24 },
  { name: 'deep', peakGiB: 27, minutes: 28 },
  { name: 'large', peakGiB: 36, minutes: 34 },
  { name: 'huge', peakGiB: 45, minutes: 40 },
] as const;

/** A trainer writes a checkpoint each epoch; the trace's runs have eight. */
const EPOCHS = 8;
const TEACHER_MEMBERS = 3;

/** Uniform in [from, to]. */
const between = (random: () => number, from: number, to: number): number => from + (to - from) * random();

/**
 * Candidates of mixed needs (6 to 45 GiB) and lengths, `rounds` rounds, durations and ramps drawn
 * (seeded). `steps`: 'training' for the trainings alone (issue 26's trace), 'generation' for every
 * step a generation runs on its lane (issue 43).
 */
export function packingTrace(
  rounds: number,
  seed: number,
  steps: 'training' | 'generation' = 'training',
): PackingJob[] {
  const random = seededRandom(seed);
  // The other steps draw from their own stream: the trainings are the same in both traces.
  const other = seededRandom(seed + 1);
  // An evaluation holds the weights and a forward pass's activations, no gradients or optimiser
  // state: 30-50% of its training's peak, a fraction fixed per candidate (what its rows teach).
  const evalShare = new Map(CANDIDATES.map((candidate) => [candidate.name, between(other, 0.3, 0.5)]));
  const jobs: PackingJob[] = [];
  for (let round = 0; round < rounds; round += 1) {
    const trainings = CANDIDATES.map((candidate): PackingJob => {
      // A run's peak varies a little with its batches (within 5% below its candidate's).
      const peakMiB = Math.round(candidate.peakGiB * 1024 * between(random, 0.95, 1));
      const durationMs = Math.round(candidate.minutes * 60_000 * between(random, 0.75, 1.25));
      return {
        id: `r${round}-train-${candidate.name}`,
        candidate: candidate.name,
        peakMiB,
        durationMs,
        rampMs: Math.round(between(random, 20_000, 120_000)),
        checkpointMs: Math.round(durationMs / EPOCHS),
      };
    });
    jobs.push(...trainings);
    if (steps === 'training') continue;
    jobs.push(...generationSteps(round, trainings, evalShare, other));
  }
  return jobs;
}

/** The steps of a round after its trainings: test evaluations, a reserve check, a teacher and its ensemble. */
function generationSteps(
  round: number,
  trainings: readonly PackingJob[],
  evalShare: ReadonlyMap<string, number>,
  random: () => number,
): PackingJob[] {
  const evalPeak = (candidate: string): number =>
    Math.round(
      (CANDIDATES.find((entry) => entry.name === candidate)?.peakGiB ?? 0) *
        1024 *
        (evalShare.get(candidate) ?? 0.4) *
        between(random, 0.95, 1),
    );
  const evaluation = (
    kind: PackingKind,
    id: string,
    candidate: string,
    minutes: [number, number],
    after: string[],
  ) => ({
    id,
    kind,
    candidate,
    peakMiB: evalPeak(candidate),
    durationMs: Math.round(between(random, minutes[0], minutes[1]) * 60_000),
    // Loading a checkpoint and the first batch: quicker than a trainer's growth.
    rampMs: Math.round(between(random, 10_000, 40_000)),
    after,
  });
  const tests = trainings.map((training) =>
    evaluation('evaluation', `r${round}-test-${training.candidate}`, training.candidate, [2, 5], [training.id ?? '']),
  );
  const scored = tests.map((test) => test.id);
  // The round's champion and its teacher's members: drawn from the round's candidates.
  const pick = (): string => trainings[Math.floor(random() * trainings.length)]?.candidate ?? '';
  const reserve = evaluation('reserve', `r${round}-reserve`, pick(), [2, 5], scored);
  const members = [...new Set(Array.from({ length: TEACHER_MEMBERS * 3 }, pick))].slice(0, TEACHER_MEMBERS);
  const teacher: PackingJob[] = [];
  for (const [index, member] of members.entries()) {
    const after = index === 0 ? scored : [teacher[index - 1]?.id ?? ''];
    teacher.push(evaluation('teacher', `r${round}-teacher-${member}`, member, [3, 6], after));
  }
  const ensemble: PackingJob = {
    id: `r${round}-ensemble`,
    kind: 'ensemble',
    candidate: members.join('+'),
    members,
    // Its members loaded side by side: their evaluations' peaks together.
    peakMiB: teacher.reduce((sum, member) => sum + member.peakMiB, 0),
    durationMs: Math.round(between(random, 4, 8) * 60_000),
    rampMs: Math.round(between(random, 20_000, 60_000)),
    after: [teacher.at(-1)?.id ?? ''],
  };
  return [...tests, reserve, ...teacher, ensemble];
}
