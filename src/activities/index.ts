// The activities: every function exported here but the two lane helpers at the end is one a
// worker registers. Workflows import this module as types only.
import { readCandidates } from './read-candidates.js';
import { prepareRun } from './prepare-run.js';
import { writeEnsembleManifest } from './write-ensemble-manifest.js';
import { evaluateRun } from './evaluate-run.js';
import { missingFiles } from './missing-files.js';
import { packageChampion } from './package-champion.js';
import { evaluateReserve } from './evaluate-reserve.js';
import { buildSplit } from './build-split.js';
import { withStepScope, type StepScope } from './support/step-scope.js';
import { buildTeacher } from './build-teacher.js';
import { trainRun } from './train-run.js';
import { waitForChange } from './wait-for-change.js';
import { DEFAULT_OOM_RETRIES, type LaneJob } from '../contract/lane-job.js';
import type { GpuNeed } from '../rules/gpu-needs.js';
import { eachLaneStep, type LaneStepName } from '../contract/steps.js';
import { definedFields } from '../support/defined-fields.js';

export {
  readCandidates,
  prepareRun,
  evaluateRun,
  packageChampion,
  evaluateReserve,
  buildSplit,
  trainRun,
  buildTeacher,
  writeEnsembleManifest,
  missingFiles,
  waitForChange,
};

/** CPU activities of the orchestrator worker: candidates, split, job configs, manifests, file checks (its worker adds those that need a client). */
export const orchestratorActivities = {
  readCandidates,
  buildSplit,
  prepareRun,
  writeEnsembleManifest,
  missingFiles,
  waitForChange,
};

/** GPU activities of a lane worker: training and evaluation subprocesses on its device (the catalogue's lane steps, contract/steps.ts). */
export const laneActivities = { trainRun, evaluateRun, evaluateReserve, buildTeacher } satisfies Record<
  LaneStepName,
  unknown
>;

/** The package worker's one activity. */
export const packageActivities = { packageChampion };

/** Not an activity: sets the subprocess variables (CUDA_VISIBLE_DEVICES) of every lane in this process. */
export { setSubprocessEnv } from './support/step-scope.js';

/**
 * Not an activity: a lane's activities whose subprocesses run in the lane's scope (its
 * CUDA_VISIBLE_DEVICES, kill grace and stop), so that several lanes can share one process.
 */
export function createLaneActivities(scope: StepScope): typeof laneActivities {
  // Each activity opens its job's lane terms (what each step may use of the lane) into the scope its steps run in.
  const onLane =
    <I extends { readonly laneJob?: LaneJob }, O>(activity: (input: I) => Promise<O>) =>
    (input: I): Promise<O> => {
      const job = input.laneJob ?? legacyJob(input);
      const memoryWaits: [number, number][] = [];
      const inScope = { ...scope, memoryWaits, ...definedFields({ job }) };
      return withStepScope(inScope, () => activity(input)).then((outcome) => withMemoryWaits(outcome, memoryWaits));
    };
  // Each step's own signature kept: the map's values are typed by laneActivities, built from the catalogue.
  return eachLaneStep((name) =>
    onLane(laneActivities[name] as (input: { laneJob?: LaneJob }) => Promise<unknown>),
  ) as typeof laneActivities;
}

/**
 * An outcome with its steps' waits for GPU memory (`memory_waits`, WithMemoryWaits): on the
 * outcome, or on the first of a list of rows; none waited, or nothing to carry them: as it was.
 */
function withMemoryWaits<O>(outcome: O, waits: readonly [number, number][]): O {
  if (waits.length === 0) return outcome;
  if (Array.isArray(outcome)) {
    const [first, ...rest] = outcome as unknown[];
    if (first === null || typeof first !== 'object') return outcome;
    return [{ ...first, memory_waits: waits }, ...rest] as O;
  }
  if (outcome === null || typeof outcome !== 'object') return outcome;
  return { ...outcome, memory_waits: waits };
}

/** A job sent before lane terms: its training's need, which its evaluations were held to too. */
function legacyJob(input: object): LaneJob | undefined {
  const need = (input as { gpuNeed?: GpuNeed }).gpuNeed;
  if (need === undefined) return undefined;
  return { needs: { train: need, evaluate: need }, oom: { retries: DEFAULT_OOM_RETRIES } };
}
