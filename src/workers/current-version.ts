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

/** The deployment as the server describes it: its current build, and when each version was created and last current. */
interface DeploymentFacts {
  readonly current: string | null;
  readonly versions: ReadonlyMap<string, { readonly createdMs: number | null; readonly wasCurrent: boolean }>;
}

const millis = (time: { seconds?: unknown; nanos?: number | null } | null | undefined): number | null =>
  time?.seconds == null ? null : Number(time.seconds) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);

async function describeDeployment(at: Deployments, deploymentName: string): Promise<DeploymentFacts> {
  try {
    const { workerDeploymentInfo } = await at.workflowService.describeWorkerDeployment({
      namespace: at.namespace,
      deploymentName,
    });
    const versions = new Map<string, { createdMs: number | null; wasCurrent: boolean }>();
    for (const summary of workerDeploymentInfo?.versionSummaries ?? []) {
      const buildId = summary.deploymentVersion?.buildId;
      if (!buildId) continue;
      versions.set(buildId, {
        createdMs: millis(summary.createTime),
        // Current once and replaced since: its deactivation is recorded.
        wasCurrent: millis(summary.lastDeactivationTime) !== null,
      });
    }
    return { current: workerDeploymentInfo?.routingConfig?.currentDeploymentVersion?.buildId ?? null, versions };
  } catch (error) {
    if ((error as { code?: number }).code === NOT_FOUND) return { current: null, versions: new Map() };
    throw error;
  }
}

/**
 * Why `buildId` must not take the current version from `current` by itself, or null when it may:
 * it was current once and was replaced, or the deployment knew it before the current one (an
 * older build restarted, to finish the runs pinned to it, issue 48). A build the deployment has
 * not seen before (or saw after the current one) is a new build and takes over.
 */
function olderThanCurrent(facts: DeploymentFacts, buildId: string, current: string): string | null {
  const ours = facts.versions.get(buildId);
  if (ours === undefined) return null;
  if (ours.wasCurrent) return `it was current before and ${current} replaced it`;
  const theirs = facts.versions.get(current);
  if (ours.createdMs !== null && theirs?.createdMs != null && ours.createdMs < theirs.createdMs)
    return `the deployment knew it before ${current}`;
  return null;
}

/** How `becomeCurrent` ended: current (and the build it replaced), or left as it is, and why. */
export type CurrentOutcome =
  | { readonly current: true; readonly was: string | null }
  | { readonly current: false; readonly holder: string; readonly why: string };

/**
 * Make `version` current (a no-op when it is), unless it is an older build than the current one
 * (then it is left as it is, unless `makeCurrent`: an operator rolling back on purpose). Gives up
 * after `withinMs` with what the server last said.
 */
export async function becomeCurrent(
  at: Deployments,
  version: WorkerDeploymentVersion,
  {
    withinMs = 60_000,
    intervalMs = 250,
    makeCurrent = false,
  }: { withinMs?: number; intervalMs?: number; makeCurrent?: boolean } = {},
): Promise<CurrentOutcome> {
  const facts = await describeDeployment(at, version.deploymentName);
  const was = facts.current;
  if (was === version.buildId) return { current: true, was };
  if (was !== null && !makeCurrent) {
    const why = olderThanCurrent(facts, version.buildId, was);
    if (why !== null) return { current: false, holder: was, why };
  }
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
      return { current: true, was };
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
