// How full a GPU lane keeps its card (issue 26, item 5), side by side on one simulated trace:
// 200 jobs of eight candidates peaking at 6 to 45 GiB, on an 80 GiB card and on the H200 whose
// nvidia-smi output the tests hold (143,771 MiB). Pure simulation (lib/packing.ts): the lane's
// policy is its own code (LaneAdmission, LaneSteps); the seed's and the oracle's are modelled.
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

const POLICIES: readonly { readonly key: string; readonly what: string; readonly policy: PackingPolicy }[] = [
  { key: 'oracle', what: 'oracle (first-fit by true peaks)', policy: { kind: 'oracle' } },
  {
    key: 'oracle-candidate',
    what: "candidate oracle (first-fit by each candidate's largest peak, known from the start)",
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
    what: `this loop's lane, per-candidate needs (1.1 x the peak its runs held, gpu_peak_mib; min_free_gib ${LARGEST_PEAK_GIB} until seen)`,
    policy: { kind: 'guard', needGiB: LARGEST_PEAK_GIB, pollMs: 5_000, learned: { margin: 1.1 } },
  },
  {
    key: 'lane-learned-1.05',
    what: "this loop's lane, per-candidate needs with gpu_needs.margin 1.05",
    policy: { kind: 'guard', needGiB: LARGEST_PEAK_GIB, pollMs: 5_000, learned: { margin: 1.05 } },
  },
];

/** The goals and the comparisons that explain them, on one card. */
function comparisonFigures(section: string, get: (key: string) => PackingResult): Figure[] {
  // The lane as a loop runs it by default: each candidate's need learned from its runs.
  const lane = get('lane-learned');
  const oracle = get('oracle');
  const byCandidate = get('oracle-candidate');
  return [
    figure(section, "makespan, this loop's lane / oracle", lane.makespanMs / oracle.makespanMs, 'x', {
      op: '<=',
      value: 1.1,
    }),
    figure(section, "mean jobs at once, seed's policy / this loop's lane", get('seed').meanJobs / lane.meanJobs, 'x', {
      op: '<=',
      value: 1,
    }),
    figure(section, "CUDA OOMs, this loop's lane", lane.ooms, '', { op: '<=', value: 0 }),
    // What no admission by a need per candidate can do better than, and the lane against it.
    figure(
      section,
      'makespan, candidate oracle / oracle',
      byCandidate.makespanMs / oracle.makespanMs,
      'x',
      null,
      'the cost of not knowing which run of a candidate peaks lower: no admission by per-candidate needs beats it',
    ),
    figure(
      section,
      "makespan, this loop's lane / candidate oracle",
      lane.makespanMs / byCandidate.makespanMs,
      'x',
      null,
      'what learning the needs (the first run of each candidate at min_free_gib) and their margin cost',
    ),
    figure(
      section,
      "mean jobs at once whose work was kept (OOM-killed time left out), seed's policy / this loop's lane",
      get('seed').meanUsefulJobs / lane.meanUsefulJobs,
      'x',
      null,
      'the goal above counts the time of trainings that then fail as CUDA OOM and start over',
    ),
    figure(
      section,
      "makespan, this loop's lane with gpu_needs.margin 1.05 / oracle",
      get('lane-learned-1.05').makespanMs / oracle.makespanMs,
      'x',
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
    ];
  });
}

export function runPacking(ctx: BenchContext): {
  figures: Figure[];
  details: Record<string, unknown>;
  notes: string[];
} {
  const trace = packingTrace(ctx.options.packingRounds, ctx.options.seed);
  const figures: Figure[] = [];
  const details: Record<string, unknown> = { jobs: trace.length, slots: SLOTS };
  for (const card of CARDS) {
    const results = new Map<string, PackingResult>();
    for (const { key, what, policy } of POLICIES) {
      const result = simulatePacking(trace, card, policy, SLOTS);
      results.set(key, result);
      ctx.log(
        `packing ${card.name}, ${what}: ${(result.makespanMs / 3_600_000).toFixed(1)} h, ${result.meanJobs.toFixed(2)} jobs at once, ` +
          `${(100 * result.memoryUtilisation).toFixed(1)}% of memory-time, ${result.ooms} OOM`,
      );
    }
    const get = (key: string) => results.get(key) as PackingResult;
    const section = `packing ${card.name}`;
    figures.push(...comparisonFigures(section, get), ...policyFigures(section, get));
    details[card.name] = Object.fromEntries(results);
  }
  return {
    figures,
    details,
    notes: [
      `packing: ${trace.length} simulated jobs; an OOM frees the job's memory and puts it back at the head of the queue. ` +
        "The goals are judged on the lane with per-candidate needs, a loop's default (bench/README.md, packing).",
    ],
  };
}
