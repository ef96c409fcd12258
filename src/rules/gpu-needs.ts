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
