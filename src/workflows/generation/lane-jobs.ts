// What each job's lane steps may use of their lane, decided once where the job is launched
// (contract/lane-job.ts): the GPU need of every kind of step it runs, from what the loop has
// learned of each candidate's trainings and evaluations (rules/gpu-needs.ts) and loop.yaml.
import { DEFAULT_OOM_RETRIES, type LaneJob } from '../../contract/lane-job.js';
import type { Candidate } from '../../config/candidate.js';
import {
  ensembleGpuNeed,
  evaluateGpuNeed,
  jobGpuNeed,
  type GpuNeed,
  type NeedsKnown,
  type StepNeeds,
} from '../../rules/gpu-needs.js';
import { candidateOfRunId } from '../../rules/ids.js';
import type { Job } from './jobs.js';
import type { Generation } from './state.js';
import { definedFields } from '../../support/defined-fields.js';

type Definition = Pick<Candidate, 'name' | 'base_config' | 'overrides'>;

/** The lane terms of `job`. */
export function laneJobOf(gen: Generation, job: Job): LaneJob {
  const marker = gen.config.oom_marker;
  return {
    needs: stepNeedsOf(gen, job),
    oom: { retries: gen.config.retries.oom ?? DEFAULT_OOM_RETRIES, ...definedFields({ marker }) },
  };
}

function stepNeedsOf(gen: Generation, job: Job): StepNeeds {
  const known: NeedsKnown = {
    settings: gen.config.gpu_needs,
    trainPeaks: gen.candidatePeaks,
    evaluatePeaks: gen.evaluatePeaks,
  };
  const evaluate = (definition: Definition | null): GpuNeed | undefined =>
    definition === null ? undefined : evaluateGpuNeed(definition, known);
  switch (job.kind) {
    case 'run': {
      if (job.reportRun !== true) {
        return needs({
          train: jobGpuNeed(job.candidate, known.trainPeaks, known.settings),
          evaluate: evaluate(job.candidate),
        });
      }
      // An ensemble: what its members need loaded side by side, else what its own evaluations held.
      // A member nothing was learned of counts as the lane's default (loop.yaml min_free_gib).
      const members = memberCandidates(gen, job.run?.members ?? []);
      const unknownMiB = gen.config.min_free_gib * 1024;
      return needs({ evaluate: (members && ensembleGpuNeed(members, known, unknownMiB)) ?? evaluate(job.candidate) });
    }
    case 'reserve': {
      const { champion } = job;
      // A checkpoint of a candidate, else an ensemble's (its evaluations are learned under its run id).
      const definition = candidateNamed(gen, candidateOfRunId(champion.run_id) ?? '') ?? {
        name: champion.run_id,
        base_config: '',
        overrides: {},
      };
      return needs({ evaluate: evaluate(definition) });
    }
    case 'teacher': {
      const members: Record<string, GpuNeed> = {};
      let most: GpuNeed | undefined;
      for (const member of job.members) {
        const need = evaluate(candidateNamed(gen, candidateOfRunId(member.run_id) ?? ''));
        if (need === undefined) continue;
        members[member.run_id] = need;
        if (most === undefined || need.mib > most.mib) most = need;
      }
      // A step of the build that is no member's own (a batch of members) is held to the largest member's need.
      return Object.keys(members).length === 0 ? {} : needs({ members, evaluate: most });
    }
  }
}

/** `needs` without the kinds no need is known for. */
function needs(all: { [K in keyof StepNeeds]: StepNeeds[K] | undefined }): StepNeeds {
  return Object.fromEntries(Object.entries(all).filter(([, need]) => need !== undefined));
}

/** The candidate of that name on the loop's current list, if any. */
function candidateNamed(gen: Generation, name: string): Candidate | null {
  return gen.candidates?.find((candidate) => candidate.name === name) ?? null;
}

/** An ensemble's members' candidates (by their checkpoints' run directories), or null when one is not known. */
function memberCandidates(gen: Generation, members: readonly unknown[]): Candidate[] | null {
  const found: Candidate[] = [];
  for (const member of members) {
    const checkpoint = (member as { checkpoint?: unknown } | null)?.checkpoint;
    if (typeof checkpoint !== 'string') return null;
    const runId = checkpoint.split('/').slice(-2)[0] ?? '';
    const candidate = candidateNamed(gen, candidateOfRunId(runId) ?? '');
    if (candidate === null) return null;
    found.push(candidate);
  }
  return found.length === 0 ? null : found;
}
