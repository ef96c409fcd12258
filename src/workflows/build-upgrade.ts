// What the long-lived workflows (a generation, packaging) do under Worker Versioning
// (src/workers/deployment.ts): each run stays on the build that started it (Pinned), hands over
// once a newer build is the deployment's current version, and its next run starts on that build.
// Without versioning the check is always false and continue-as-new is as before.
import { makeContinueAsNewFunc, workflowInfo, type Workflow } from '@temporalio/workflow';

/** A newer build became the deployment's current version since this run started (always false unversioned). */
export function newerBuildIsCurrent(): boolean {
  return workflowInfo().targetWorkerDeploymentVersionChanged === true;
}

/** Continue as new on the deployment's current build (AUTO_UPGRADE for the next run's first task). */
export function continueOnCurrentBuild<F extends Workflow>(...args: Parameters<F>): Promise<never> {
  return makeContinueAsNewFunc<F>({ initialVersioningBehavior: 'AUTO_UPGRADE' })(...args);
}
