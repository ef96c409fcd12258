// What a training run is given (the generation's plan of it, its job input) and how its run row
// and lane terms are made of them. Workflow code: deterministic, no Node built-ins.
import type { Candidate } from '../activities/types.js';
import type { RunRow } from '../ledger/rows.js';
import type { GpuNeed } from '../rules/gpu-needs.js';
import { DEFAULT_OOM_RETRIES, type LaneJob } from '../contract/lane-job.js';
import type { JobInput } from './job-input.js';

/** One training run of one candidate in one round, as the generation planned it. */
export interface RunPlan {
  readonly generation: number;
  readonly round: number;
  readonly seed: number;
  readonly candidate: Candidate;
  readonly runId: string;
  readonly split: string;
  /** The split's seed: a split gone from the state dir is built again from it. Absent in inputs from before. */
  readonly splitSeed?: number;
}

export interface TrainingRunInput extends JobInput {
  readonly noCheckpointMarker: string;
  /** loop.yaml `resume_flag`; absent when it is not set (and in inputs from before the setting). */
  readonly resumeFlag?: string;
  readonly plan: RunPlan;
  /** Set when an earlier child trained the run and only evaluations are left. */
  readonly run: RunRow | null;
  readonly unscored: string[] | null;
  /** The run row came from the generation (an ensemble's synthetic run) and is new to the ledger. */
  readonly reportRun?: boolean;
  /** Inputs from before `laneJob`: what the run's training may grow to on its lane's GPU (its evaluations were held to it too). */
  readonly gpuNeed?: GpuNeed;
  /** loop.yaml `usd_per_gpu_hour` of its lane, when set: the run row's `gpu_usd`. */
  readonly usdPerGpuHour?: number;
}

export function runRow(
  plan: RunPlan,
  configPath: string,
  configSha256: string,
  fields: Partial<RunRow> & Pick<RunRow, 'status' | 'started' | 'finished'>,
): RunRow {
  return {
    type: 'run',
    generation: plan.generation,
    round: plan.round,
    seed: plan.seed,
    candidate: plan.candidate.name,
    run_id: plan.runId,
    config_path: configPath,
    config_sha256: configSha256,
    train_rc: null,
    epochs_run: null,
    checkpoints: [],
    error: null,
    ...fields,
  };
}

/** The job's lane terms: the generation's, or (inputs from before them) the training's need for all its steps. */
export function laneJobOfInput(input: TrainingRunInput): { laneJob?: LaneJob } {
  if (input.laneJob !== undefined) return { laneJob: input.laneJob };
  if (input.gpuNeed === undefined) return {};
  return {
    laneJob: {
      needs: { train: input.gpuNeed, evaluate: input.gpuNeed },
      oom: { retries: input.retries.oom ?? DEFAULT_OOM_RETRIES },
    },
  };
}

/** What the training's GPU time cost at its lane's price, to the cent's hundredth, when both are known. */
export function gpuCost(seconds: number | undefined, usdPerGpuHour: number | undefined): { gpu_usd?: number } {
  if (seconds === undefined || usdPerGpuHour === undefined) return {};
  return { gpu_usd: Math.round((seconds / 3600) * usdPerGpuHour * 10_000) / 10_000 };
}
