// The needs a lane admits a simulated job's step by, learned as a generation learns them: the
// project's own rules (src/rules/gpu-needs.ts) over the peaks the simulated steps were seen
// holding. Pure, no I/O.
import {
  ensembleGpuNeed,
  evaluateGpuNeed,
  jobGpuNeed,
  notePeak,
  type CandidatePeaks,
  type NeedsKnown,
} from '../../src/rules/gpu-needs.js';
import { kindOf, type PackingJob } from './packing-trace.js';

/** A simulated candidate: its name is all that tells it apart (its definition never changes). */
const candidateNamed = (name: string) => ({ name, base_config: name, overrides: {} });

/** Each candidate's trainings' and evaluations' peaks, and the needs they give (margin x peak). */
export class LearnedNeeds {
  private trainPeaks: CandidatePeaks = {};
  private evaluatePeaks: CandidatePeaks = {};

  constructor(private readonly margin: number) {}

  private known(): NeedsKnown {
    return { settings: { margin: this.margin }, trainPeaks: this.trainPeaks, evaluatePeaks: this.evaluatePeaks };
  }

  /**
   * The need `job`'s step is admitted by, as lane-jobs.ts decides it (MiB), or undefined: the
   * lane's `min_free_gib`. A training by its candidate's trainings; an evaluation, a reserve check
   * or a teacher's member by its candidate's evaluations (else its training's need); an ensemble
   * by its members' evaluation needs together.
   */
  needOf(job: PackingJob): number | undefined {
    const known = this.known();
    switch (kindOf(job)) {
      case 'training':
        return jobGpuNeed(candidateNamed(job.candidate), this.trainPeaks, known.settings)?.mib;
      case 'ensemble':
        return ensembleGpuNeed((job.members ?? []).map(candidateNamed), known)?.mib;
      default:
        return evaluateGpuNeed(candidateNamed(job.candidate), known)?.mib;
    }
  }

  /**
   * What a step of `job` held at most, as its report tells the generation (reports.ts): a
   * training's run row (`gpu_peak_mib`, trained or not), a test evaluation's or a reserve check's
   * `evalPeakMiB` once it is done. A teacher's members and an ensemble teach nothing.
   */
  noted(job: PackingJob, peakMiB: number, completed: boolean): void {
    const candidate = candidateNamed(job.candidate);
    const kind = kindOf(job);
    if (kind === 'training') this.trainPeaks = notePeak(this.trainPeaks, candidate, peakMiB, completed);
    else if ((kind === 'evaluation' || kind === 'reserve') && completed)
      this.evaluatePeaks = notePeak(this.evaluatePeaks, candidate, peakMiB, true);
  }
}
