// Worker Versioning, opt-in (docs/operating.md, "Deploying new code"): with
// CHAMPION_LOOP_WORKER_VERSIONING=1 the orchestrator polls as one version of a worker deployment,
// named by a build id derived from its workflow bundle (so a worker whose workflow code differs is
// another version) unless CHAMPION_LOOP_BUILD_ID says otherwise. Workflows stay on the version that
// started them (Pinned); a generation moves to the deployment's current version at its next
// continue-as-new. Lanes and the package worker run activities only and poll unversioned: their
// queues are not the deployment's. Without it the orchestrator polls unversioned, as before.
import { createHash } from 'node:crypto';
import type { WorkerDeploymentVersion } from '@temporalio/common';
import type { WorkerDeploymentOptions } from '@temporalio/worker';

const DEFAULT_DEPLOYMENT = 'champion-loop';

/**
 * This orchestrator's version: the deployment (CHAMPION_LOOP_DEPLOYMENT) and build id (`buildId`,
 * else CHAMPION_LOOP_BUILD_ID, else from the bundle).
 */
export function deploymentVersion(
  bundleCode: string,
  buildId?: string,
  env: NodeJS.ProcessEnv = process.env,
): WorkerDeploymentVersion {
  return {
    deploymentName: env.CHAMPION_LOOP_DEPLOYMENT || DEFAULT_DEPLOYMENT,
    buildId:
      buildId || env.CHAMPION_LOOP_BUILD_ID || createHash('sha256').update(bundleCode).digest('hex').slice(0, 12),
  };
}

/** Whether the environment asks for Worker Versioning. */
export function versioningWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return env.CHAMPION_LOOP_WORKER_VERSIONING === '1' || env.CHAMPION_LOOP_WORKER_VERSIONING === 'true';
}

/** How a versioned orchestrator polls: as `version`, its workflows Pinned to it unless they say otherwise. */
export function orchestratorDeployment(version: WorkerDeploymentVersion): WorkerDeploymentOptions {
  return { useWorkerVersioning: true, version, defaultVersioningBehavior: 'PINNED' };
}
