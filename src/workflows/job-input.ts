import type { LoopPaths, StepCommands } from '../activities/types.js';
import type { LoopConfig } from '../config/loop-config.js';
import type { ArtifactSettings } from '../artifacts/store-settings.js';
import type { LaneJob } from '../contract/lane-job.js';

/** What every job's child workflow gets from its generation: who to report to, where it runs, how. */
export interface JobInput {
  readonly loopId: string;
  /** The loop's incarnation when past its first (`start --fresh`): its children's ids carry it (ids.ts). */
  readonly incarnation?: number;
  /** The generation workflow's id; the report goes to whichever run of it is current. */
  readonly parentId: string;
  readonly jobId: string;
  /** The lane's task queue: the job's activities run there. */
  readonly lane: string;
  readonly paths: LoopPaths;
  readonly commands: StepCommands;
  readonly timeouts: LoopConfig['timeouts'];
  readonly retries: LoopConfig['retries'];
  /**
   * Set only under loop.yaml `champion_rule: paired`: test evals carry their per-item error record
   * (`item_errors`) of this block. Absent otherwise, so a default loop's inputs are as they were.
   */
  readonly itemErrors?: 'result' | 'decided';
  /**
   * `completion`: the child's result is its report, to the generation run that started it; it
   * signals its report only once a later run adopts it (`adopt`). Absent (children started
   * before the baseline): it always reports by signal.
   */
  readonly reportBy?: 'completion';
  /**
   * What each of the job's lane steps may use of its lane (its GPU needs, how an out-of-memory is
   * told and waited out), decided once where the job is launched and passed on, unchanged, to
   * every lane activity it runs. Absent in inputs from before it (the training's `gpuNeed` then).
   */
  readonly laneJob?: LaneJob;
  /**
   * loop.yaml `priority` and `fairness_weight`, when set: where each of the job's lane steps stands in
   * its lane's queue (step-priority.ts). Absent when not set (and in inputs from before them).
   */
  readonly priority?: number;
  readonly fairnessWeight?: number;
  /** loop.yaml `artifacts:`: its steps move the files other hosts read through the store (docs/artifacts.md). */
  readonly artifacts?: ArtifactSettings;
}
