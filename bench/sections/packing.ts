// How full a GPU lane keeps its card (issue 26, item 5; issue 43), side by side on one simulated
// trace: a generation's every lane step (packing-trace.ts: trainings of eight candidates peaking
// at 6 to 45 GiB, their test evaluations, reserve checks, teacher builds and ensemble
// evaluations), on an 80 GiB card and on the H200 whose nvidia-smi output the tests hold
// (143,771 MiB). Pure simulation (lib/packing.ts): the lane's policy is its own code
// (LaneAdmission, LaneSteps, the need rules, oomDecision); the seed's and the oracle's are modelled.
import type { BenchContext } from '../lib/context.js';
import { figure, type Figure } from '../lib/figures.js';
import { packingTrace, simulatePacking, type Card, type PackingPolicy, type PackingResult } from '../lib/packing.js';

const CARDS: readonly Card[] = [
  { name: '80 GiB card', totalMiB: 80 * 1024, idleUsedMiB: 618 },
  // query-gpu-noheader.csv and torch-alloc.txt: total 143771, 618 MiB used with nothing running.
  { name: 'H200', totalMiB: 143_771, idleUsedMiB: 618 },
];

/** Every policy may run this many jobs at once: memory, not slots, is what limits them. */
const SLOTS = 16;
const LARGEST_PEAK_GIB = 45;
/** The overtaking measured: later steps a waiting one may be passed by (lane-admission.ts). */
const OVERTAKING = 64;

const learned = (margin: number, overtaking = 0, priorityBlind = false): PackingPolicy => ({
  kind: 'guard',
  needGiB: LARGEST_PEAK_GIB,
  pollMs: 5_000,
  learned: { margin },
  ...(overtaking > 0 ? { overtaking } : {}),
  ...(priorityBlind ? { priorityBlind } : {}),
});

const POLICIES: readonly { readonly key: string; readonly what: string; readonly policy: PackingPolicy }[] = [
  { key: 'oracle', what: 'oracle (first-fit by true peaks)', policy: { kind: 'oracle' } },
  {
    key: 'oracle-candidate',
    what: "candidate oracle (first-fit by each candidate's largest peak per kind of step, known from the start)",
    policy: { kind: 'oracle', knows: 'candidate' },
  },
  {
    key: 'seed',
    what: "seed's policy (free >= min_free_gib 30, 30 s launch gap)",
    policy: { kind: 'seed', minFreeGiB: 30, pollMs: 30_000, launchGapMs: 30_000 },
  },
  {
    key: 'lane',
    what: `this loop's lane, min_free_gib ${LARGEST_PEAK_GIB} (the largest peak)`,
    policy: { kind: 'guard', needGiB: LARGEST_PEAK_GIB, pollMs: 5_000 },
  },
  {
    key: 'lane-30',
    what: "this loop's lane, min_free_gib 30 (the seed's default, below the largest peak)",
    policy: { kind: 'guard', needGiB: 30, pollMs: 5_000 },
  },
  {
    key: 'lane-learned',
    what: `this loop's lane, per-step needs (1.1 x the peak its candidate's steps of its kind held; min_free_gib ${LARGEST_PEAK_GIB} until seen)`,
    policy: learned(1.1),
  },
  { key: 'lane-learned-1.05', what: "this loop's lane, per-step needs, gpu_needs.margin 1.05", policy: learned(1.05) },
  { key: 'lane-learned-1.0', what: "this loop's lane, per-step needs, gpu_needs.margin 1.0", policy: learned(1) },
  {
    key: 'lane-overtaking',
    what: `this loop's lane, per-step needs, overtaking ${OVERTAKING}`,
    policy: learned(1.1, OVERTAKING),
  },
  {
    key: 'lane-overtaking-1.0',
    what: `this loop's lane, per-step needs, gpu_needs.margin 1.0, overtaking ${OVERTAKING}`,
    policy: learned(1, OVERTAKING),
  },
  {
    key: 'lane-overtaking-1.0-blind',
    what: `this loop's lane, per-step needs, gpu_needs.margin 1.0, overtaking ${OVERTAKING}, a training may take a reserve check's room (the rule before)`,
    policy: learned(1, OVERTAKING, true),
  },
];

const makespanOver = (result: PackingResult, oracle: PackingResult): number => result.makespanMs / oracle.makespanMs;

/** The goals, judged on the lane as a loop runs it by default, and the comparisons that explain them, on one card. */
function comparisonFigures(section: string, get: (key: string) => PackingResult): Figure[] {
  const lane = get('lane-learned');
  const oracle = get('oracle');
  const seed = get('seed');
  const beside = (key: string, what: string): Figure =>
    figure(section, `makespan, this loop's lane with ${what} / oracle`, makespanOver(get(key), oracle), 'x', null);
  return [
    figure(section, "makespan, this loop's lane / oracle", makespanOver(lane, oracle), 'x', { op: '<=', value: 1.1 }),
    figure(section, "OOM-failed steps, this loop's lane", lane.oomFailed, '', { op: '<=', value: 0 }),
    figure(
      section,
      "seed's policy's jobs at once whose work was kept / this loop's lane's jobs at once",
      seed.meanUsefulJobs / lane.meanJobs,
      'x',
      {
        op: '<=',
        value: 1,
      },
    ),
    figure(section, "out-of-memories waited out, this loop's lane", lane.oomWaits, '', null),
    figure(
      section,
      'makespan, candidate oracle / oracle',
      makespanOver(get('oracle-candidate'), oracle),
      'x',
      null,
      'the cost of not knowing which run of a candidate peaks lower: no in-order admission by per-candidate needs beats it',
    ),
    beside('lane-learned-1.05', 'gpu_needs.margin 1.05'),
    beside('lane-learned-1.0', 'gpu_needs.margin 1.0'),
    beside('lane-overtaking', `overtaking ${OVERTAKING}`),
    beside('lane-overtaking-1.0', `gpu_needs.margin 1.0 and overtaking ${OVERTAKING}`),
    beside(
      'lane-overtaking-1.0-blind',
      `gpu_needs.margin 1.0 and overtaking ${OVERTAKING}, passing more urgent steps (the rule before)`,
    ),
    figure(
      section,
      "OOM-failed steps, this loop's lane with gpu_needs.margin 1.0 and overtaking " + OVERTAKING,
      get('lane-overtaking-1.0').oomFailed,
      '',
      null,
    ),
  ];
}

/** Each policy's own figures on one card. */
function policyFigures(section: string, get: (key: string) => PackingResult): Figure[] {
  return POLICIES.flatMap(({ key, what }) => {
    const result = get(key);
    return [
      figure(section, `${what}: mean jobs at once`, result.meanJobs, ''),
      figure(section, `${what}: mean jobs at once, work kept`, result.meanUsefulJobs, ''),
      figure(section, `${what}: memory-time used`, 100 * result.memoryUtilisation, '%'),
      figure(section, `${what}: makespan`, result.makespanMs / 3_600_000, 'h'),
      figure(section, `${what}: CUDA OOMs`, result.ooms, ''),
      figure(section, `${what}: OOMs waited out`, result.oomWaits, ''),
      figure(section, `${what}: OOM-failed steps`, result.oomFailed, ''),
      figure(section, `${what}: reserve checks, queued to started, mean`, result.reserveWaitMeanMs / 60_000, 'min'),
      figure(
        section,
        `${what}: reserve checks, queued to started, longest`,
        result.reserveWaitLongestMs / 60_000,
        'min',
      ),
      figure(section, `${what}: longest a step waited for room`, result.longestWaitMs / 60_000, 'min'),
    ];
  });
}

/** The trainings alone (issue 26's trace), for the figures before issue 43: the default lane against the oracle. */
function trainingOnlyFigure(ctx: BenchContext, card: Card): Figure {
  const trace = packingTrace(ctx.options.packingRounds, ctx.options.seed, 'training');
  const oracle = simulatePacking(trace, card, { kind: 'oracle' }, SLOTS);
  const lane = simulatePacking(trace, card, learned(1.1), SLOTS);
  return figure(
    `packing ${card.name}`,
    "trainings alone: makespan, this loop's lane / oracle",
    makespanOver(lane, oracle),
    'x',
    null,
  );
}

export function runPacking(ctx: BenchContext): {
  figures: Figure[];
  details: Record<string, unknown>;
  notes: string[];
} {
  const trace = packingTrace(ctx.options.packingRounds, ctx.options.seed, 'generation');
  const figures: Figure[] = [];
  const details: Record<string, unknown> = { jobs: trace.length, slots: SLOTS };
  for (const card of CARDS) {
    const results = new Map<string, PackingResult>();
    for (const { key, what, policy } of POLICIES) {
      const result = simulatePacking(trace, card, policy, SLOTS);
      results.set(key, result);
      ctx.log(
        `packing ${card.name}, ${what}: ${(result.makespanMs / 3_600_000).toFixed(1)} h, ${result.meanJobs.toFixed(2)} jobs at once, ` +
          `${(100 * result.memoryUtilisation).toFixed(1)}% of memory-time, ${result.ooms} OOM (${result.oomWaits} waited out, ${result.oomFailed} failed), ` +
          `reserve checks waited ${(result.reserveWaitMeanMs / 60_000).toFixed(1)} min on average (${(result.reserveWaitLongestMs / 60_000).toFixed(0)} at most)`,
      );
    }
    const get = (key: string) => results.get(key) as PackingResult;
    const section = `packing ${card.name}`;
    figures.push(...comparisonFigures(section, get), trainingOnlyFigure(ctx, card), ...policyFigures(section, get));
    details[card.name] = Object.fromEntries(results);
  }
  return {
    figures,
    details,
    notes: [
      `packing: ${trace.length} simulated lane steps (${ctx.options.packingRounds} rounds of a generation); the lane recovers an ` +
        "out-of-memory as its code does (the step waits again by oomDecision's need; a training resumes from its checkpoint). " +
        "The goals are judged on the lane with per-step needs, a loop's default (bench/README.md, packing).",
    ],
  };
}
