// Making a just-started orchestrator's version the deployment's current one, so that new
// workflows and generations continuing as new run on it (deployment.ts). The server takes a
// version as current only once a worker of it has polled the queues the current version has:
// until then it answers FAILED_PRECONDITION, and this tries again.
import type { WorkflowService } from '@temporalio/client';
import type { WorkerDeploymentVersion } from '@temporalio/common';

/** Where to ask: a client's or a worker connection's service, and the namespace. */
interface Deployments {
  readonly workflowService: WorkflowService;
  readonly namespace: string;
}

const NOT_FOUND = 5;
const FAILED_PRECONDITION = 9;

/** The build id of the deployment's current version; null when it has none (or no deployment yet). */
async function currentBuildId(at: Deployments, deploymentName: string): Promise<string | null> {
  try {
    const { workerDeploymentInfo } = await at.workflowService.describeWorkerDeployment({
      namespace: at.namespace,
      deploymentName,
    });
    return workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? null;
  } catch (error) {
    if ((error as { code?: number }).code === NOT_FOUND) return null;
    throw error;
  }
}

/**
 * Make `version` current (a no-op when it is). Returns the build id it replaced (null: none).
 * Gives up after `withinMs` with what the server last said.
 */
export async function becomeCurrent(
  at: Deployments,
  version: WorkerDeploymentVersion,
  { withinMs = 60_000, intervalMs = 250 }: { withinMs?: number; intervalMs?: number } = {},
): Promise<string | null> {
  const was = await currentBuildId(at, version.deploymentName);
  if (was === version.buildId) return was;
  const deadline = Date.now() + withinMs;
  for (;;) {
    try {
      await at.workflowService.setWorkerDeploymentCurrentVersion({
        namespace: at.namespace,
        deploymentName: version.deploymentName,
        buildId: version.buildId,
        // The first version of a deployment: its pollers may not have reached the server yet.
        allowNoPollers: was === null,
        identity: `champion-loop orchestrator ${version.buildId}`,
      });
      return was;
    } catch (error) {
      const code = (error as { code?: number }).code;
      const notYet = code === FAILED_PRECONDITION || code === NOT_FOUND;
      if (!notYet || Date.now() > deadline)
        throw new Error(
          `could not make build ${version.buildId} the current version of worker deployment ${version.deploymentName}: ${(error as Error).message}`,
          { cause: error },
        );
      await new Promise((resolve) => setTimeout(resolve, intervalMs));
    }
  }
}
