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
import { withStepScope, type StepScope } from './support/subprocess.js';
import { buildTeacher } from './build-teacher.js';
import { trainRun } from './train-run.js';
import { waitForChange } from './wait-for-change.js';

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

/** CPU activities of the orchestrator worker: candidates, split, job configs, manifests, file checks. */
export const orchestratorActivities = {
  readCandidates,
  buildSplit,
  prepareRun,
  writeEnsembleManifest,
  missingFiles,
  waitForChange,
};

/** The orchestrator's activities of milliseconds (each heartbeats while it runs: `keepBeating`). */
export const cpuActivities = { readCandidates, prepareRun, writeEnsembleManifest, missingFiles };

/** GPU activities of a lane worker: training and evaluation subprocesses on its device. */
export const laneActivities = { trainRun, evaluateRun, evaluateReserve, buildTeacher };

/** The package worker's one activity. */
export const packageActivities = { packageChampion };

/** Not an activity: sets the subprocess variables (CUDA_VISIBLE_DEVICES) of every lane in this process. */
export { setSubprocessEnv } from './support/subprocess.js';

/**
 * Not an activity: a lane's activities whose subprocesses run in the lane's scope (its
 * CUDA_VISIBLE_DEVICES, kill grace and stop), so that several lanes can share one process.
 */
export function createLaneActivities(scope: StepScope): typeof laneActivities {
  return {
    trainRun: (input) => withStepScope(scope, () => trainRun(input)),
    evaluateRun: (input) => withStepScope(scope, () => evaluateRun(input)),
    evaluateReserve: (input) => withStepScope(scope, () => evaluateReserve(input)),
    buildTeacher: (input) => withStepScope(scope, () => buildTeacher(input)),
  };
}
