// What GPU memory each training job may grow to: the need a lane admits it by (docs/behaviour.md
// 4.2). Pure, deterministic: the generation workflow decides it from what it has seen.
import type { Candidate } from '../config/candidate.js';

/** loop.yaml `gpu_needs`, as far as the rule reads it. */
export interface GpuNeedSettings {
  /** Learn each candidate's need from the peaks its runs held (default true). */
  readonly learn?: boolean;
  /** A learned need is this times the most a run of the candidate held (default 1.1). */
  readonly margin?: number;
  /** A fixed need in GiB per candidate name: wins over what was learned. */
  readonly candidates?: Readonly<Record<string, number>>;
}

/** The margin over a candidate's peak when loop.yaml sets none: nvidia-smi is read every few seconds and misses short spikes. */
const DEFAULT_NEED_MARGIN = 1.1;

/** The most one candidate's runs were seen holding, and the definition they were trained from. */
interface CandidatePeak {
  /** The candidate's base config and overrides when the peak was seen: a changed candidate learns afresh. */
  readonly definition: string;
  readonly peakMiB: number;
}

/** Peaks by candidate name, carried from generation to generation. */
export type CandidatePeaks = Readonly<Record<string, CandidatePeak>>;

/** A step's need and why (what a waiting step says). */
export interface GpuNeed {
  readonly mib: number;
  readonly why: string;
}

/** What a candidate is trained from, as one string: a change to it means its old peaks say nothing. */
export function candidateDefinition(candidate: Pick<Candidate, 'base_config' | 'overrides'>): string {
  return JSON.stringify([candidate.base_config, candidate.overrides]);
}

/**
 * `peaks` with what one run of `candidate` held at most (a run row's `gpu_peak_mib`). A trained
 * run went through its training steps, so it reached its peak; a run that did not train (it
 * crashed, was killed by a CUDA OOM, found no checkpoint) may have ended before it did: it raises
 * a peak already known (it held at least that much), never sets the first one, which would admit
 * its candidate's next jobs by too little. A changed candidate starts again from a trained run.
 */
export function notePeak(
  peaks: CandidatePeaks,
  candidate: Pick<Candidate, 'name' | 'base_config' | 'overrides'>,
  peakMiB: number,
  trained: boolean,
): CandidatePeaks {
  if (!(peakMiB > 0)) return peaks;
  const definition = candidateDefinition(candidate);
  const known = peaks[candidate.name];
  const before = known?.definition === definition ? known.peakMiB : null;
  if (before === null ? !trained : before >= peakMiB) return peaks;
  return { ...peaks, [candidate.name]: { definition, peakMiB } };
}

const gib = (mib: number): string => (mib / 1024).toFixed(1);

/**
 * A training job's need: loop.yaml's fixed need for its candidate, else `margin` times the most
 * its earlier runs held (same definition), else undefined: the lane's own `min_free_gib`.
 */
export function jobGpuNeed(
  candidate: Pick<Candidate, 'name' | 'base_config' | 'overrides'>,
  peaks: CandidatePeaks,
  settings: GpuNeedSettings | undefined,
): GpuNeed | undefined {
  const fixed = settings?.candidates?.[candidate.name];
  if (fixed !== undefined) {
    return { mib: Math.ceil(fixed * 1024), why: `loop.yaml gpu_needs.candidates.${candidate.name}` };
  }
  if (settings?.learn === false) return undefined;
  const known = peaks[candidate.name];
  if (known === undefined || known.definition !== candidateDefinition(candidate)) return undefined;
  const margin = settings?.margin ?? DEFAULT_NEED_MARGIN;
  return {
    mib: Math.ceil(known.peakMiB * margin),
    why: `${margin} x the ${gib(known.peakMiB)} GiB candidate ${candidate.name}'s runs held at most`,
  };
}

/**
 * What each step of one job may grow to on its lane's GPU, decided once where the job is launched
 * (workflows/generation/child-starts.ts) and carried on the job's input to every step it runs.
 * A kind absent: the lane's own `min_free_gib`, which only a step of a candidate nothing was
 * learned of yet (and nothing set by hand) is admitted by.
 */
export interface StepNeeds {
  /** The trainer. */
  readonly train?: GpuNeed;
  /** An evaluation of the job's own run or ensemble: test, validation (band scores) or reserve. */
  readonly evaluate?: GpuNeed;
  /** A teacher build's member evaluations, by the member's run id. */
  readonly members?: Readonly<Record<string, GpuNeed>>;
}

/** Which of a job's needs a step is admitted by. */
export type StepNeedKey = 'train' | 'evaluate' | { readonly member: string };

/** The need `key` names in `needs`, if the job has one. */
export function needOf(needs: StepNeeds | undefined, key: StepNeedKey): GpuNeed | undefined {
  if (needs === undefined) return undefined;
  if (typeof key === 'string') return needs[key];
  return needs.members?.[key.member] ?? needs.evaluate;
}

/** Everything the need rules read: loop.yaml's settings and the peaks learned per step kind. */
export interface NeedsKnown {
  readonly settings: GpuNeedSettings | undefined;
  /** The most each candidate's trainings held. */
  readonly trainPeaks: CandidatePeaks;
  /** The most each candidate's evaluations held (absent in carries from before it was learned). */
  readonly evaluatePeaks?: CandidatePeaks;
}

/**
 * An evaluation's need for a checkpoint of `candidate`: `margin` times the most its evaluations
 * held, else its training's need (an evaluator loads what the trainer built: never admitted by the
 * lane's default once the candidate's training is known), else undefined.
 */
export function evaluateGpuNeed(
  candidate: Pick<Candidate, 'name' | 'base_config' | 'overrides'>,
  known: NeedsKnown,
): GpuNeed | undefined {
  const training = jobGpuNeed(candidate, known.trainPeaks, known.settings);
  if (known.settings?.candidates?.[candidate.name] !== undefined) return training;
  const learned = known.settings?.learn === false ? undefined : known.evaluatePeaks?.[candidate.name];
  if (learned === undefined || learned.definition !== candidateDefinition(candidate)) return training;
  const margin = known.settings?.margin ?? DEFAULT_NEED_MARGIN;
  return {
    mib: Math.ceil(learned.peakMiB * margin),
    why: `${margin} x the ${gib(learned.peakMiB)} GiB candidate ${candidate.name}'s evaluations held at most`,
  };
}

/**
 * An ensemble's evaluation: its members are loaded side by side, so what they need together
 * (each by its candidate's evaluation need). A member nothing was learned of counts as
 * `unknownMiB` (what the lane admits a step that brings no need by, loop.yaml `min_free_gib`):
 * counting the whole ensemble at that once admitted 4 members of 90 GiB by 30 GiB, and its
 * out-of-memory reruns (1.25x each) ran out before they reached it. Undefined when no member's
 * need is known, or a member is unknown and no `unknownMiB` is given.
 */
export function ensembleGpuNeed(
  members: readonly Pick<Candidate, 'name' | 'base_config' | 'overrides'>[],
  known: NeedsKnown,
  unknownMiB?: number,
): GpuNeed | undefined {
  let mib = 0;
  let unknown = 0;
  for (const member of members) {
    const need = evaluateGpuNeed(member, known);
    if (need !== undefined) mib += need.mib;
    else if (unknownMiB === undefined) return undefined;
    else unknown += 1;
  }
  if (members.length === 0 || unknown === members.length) return undefined;
  if (unknown === 0) return { mib, why: `the ${members.length} members' evaluation needs together` };
  return {
    mib: mib + unknown * (unknownMiB ?? 0),
    why: `the ${members.length} members' evaluation needs together, ${unknown} of them unknown and counted at ${gib(unknownMiB ?? 0)} GiB`,
  };
}

/** What a process holds on a device before it allocates anything: its CUDA context, rounded up. */
const CONTEXT_MIB = 1024;

/** What a step that ran out of GPU memory is admitted by next, or why it is not tried again. */
export type OomDecision =
  { readonly retry: true; readonly need: GpuNeed } | { readonly retry: false; readonly why: string };

/** What an out-of-memory step showed: its need, what it held and asked for, whether anything else held the device. */
export interface OomSeen {
  readonly needMiB: number;
  /** The most its processes were seen holding (0: never sampled). */
  readonly peakMiB: number;
  /** What its last allocation asked for, when the stack said (PyTorch's "Tried to allocate"). */
  readonly askedMiB: number | null;
  /** Whether anything else held memory on the device while it ran (another step, an outside process); null: unknown. */
  readonly shared: boolean | null;
  /** OOM retries it has had already, and the most it may have (loop.yaml `retries.oom`). */
  readonly retries: number;
  readonly limit: number;
  /** The device's size, when known: a need past it is capped there (the step then starts alone). */
  readonly totalMiB: number | null;
}

/**
 * A CUDA out-of-memory is a wait, not a failure: the step waits again for room for what it held
 * plus what it asked for (at least a quarter more than its need, so the need always grows), up to
 * `limit` times. One that ran out alone on the device, with its need at the device's size, cannot
 * be helped by waiting: it fails, saying so.
 */
export function oomDecision(seen: OomSeen): OomDecision {
  // A step that died before the lane sampled it held at least its CUDA context (about 0.5 GiB).
  const held = seen.peakMiB > 0 ? seen.peakMiB : CONTEXT_MIB;
  const grown = Math.max(held + (seen.askedMiB ?? 0), Math.ceil(seen.needMiB * 1.25));
  const capped = seen.totalMiB === null ? grown : Math.min(grown, seen.totalMiB);
  const past = seen.totalMiB !== null && (seen.needMiB >= seen.totalMiB || grown > seen.totalMiB);
  if (seen.shared === false && past && seen.totalMiB !== null) {
    return {
      retry: false,
      why: `it ran out of GPU memory alone on the device (${gib(seen.totalMiB)} GiB): it needs more than the device has`,
    };
  }
  if (seen.retries >= seen.limit) {
    return {
      retry: false,
      why: `it ran out of GPU memory ${seen.retries + 1} times (loop.yaml retries.oom: ${seen.limit})`,
    };
  }
  const asked = seen.askedMiB === null ? '' : ` + ${gib(seen.askedMiB)} GiB it asked for`;
  return {
    retry: true,
    need: {
      mib: capped,
      why: `out of GPU memory with ${gib(seen.needMiB)} GiB: ${gib(seen.peakMiB)} GiB it held${asked}`,
    },
  };
}
