// What a job's lane step waits for while it is not running, as its activity's last heartbeat says
// (the step's pid is 0 then): the artifact store (a fetch or an upload, support/store-retry.ts) or
// its GPU lane's device memory (the lane's admission, support/subprocess.ts waitForRoom). `status`
// prints one line for each waiting job.
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import { workflowMetadataQuery } from '@temporalio/workflow';
import { openPayloads } from '../codec/decode-payloads.js';
import type { StepHeartbeat } from '../activities/support/step-types.js';
import type { LoopView } from '../workflows/loop-view.js';
import { STORE_WAIT_DETAILS } from '../workflows/messages.js';
import { timestampMs } from './proto-time.js';
import { duration } from './render-status.js';

/** The steps that wait for the artifact store; a waiting step of any other name waits for device memory. */
export const STORE_STEPS: ReadonlySet<string> = new Set(['fetch', 'upload']);

type Pending = proto.temporal.api.workflow.v1.IPendingActivityInfo;

/** An in-flight job and its child workflow's pending activities (payloads opened), read once per look. */
export interface FlightActivities {
  readonly flight: LoopView['in_flight'][number];
  readonly pending: readonly Pending[];
}

/** Each in-flight job's pending activities, one describe each; a job that does not answer is left out. */
export async function flightActivities(client: Client, view: LoopView): Promise<FlightActivities[]> {
  const flights = await Promise.all(
    view.in_flight.map(async (flight): Promise<FlightActivities | null> => {
      try {
        const description = await client.workflow.getHandle(flight.childId).describe();
        return { flight, pending: await openPayloads(client, description.raw.pendingActivities ?? []) };
      } catch {
        return null;
      }
    }),
  );
  return flights.filter((one): one is FlightActivities => one !== null);
}

/** What a pending activity's last heartbeat said of its step (null: none, or not a step's). */
export function lastBeat(
  client: Client,
  activity: proto.temporal.api.workflow.v1.IPendingActivityInfo,
): Partial<StepHeartbeat> | null {
  const payload = activity.heartbeatDetails?.payloads?.[0];
  if (!payload) return null;
  try {
    return client.options.loadedDataConverter.payloadConverter.fromPayload(payload);
  } catch {
    return null;
  }
}

/** What the pending activities' last heartbeats say of waiting steps: each step, why, and for how long. */
function waitingSteps(
  client: Client,
  pending: readonly Pending[],
): { readonly step: string; readonly waiting: string; readonly elapsedMs: number }[] {
  const waits = [];
  for (const activity of pending) {
    const details = lastBeat(client, activity);
    // The wait as the heartbeat said it, and since that heartbeat (steps beat every few seconds).
    const since = activity.lastHeartbeatTime ? Math.max(0, Date.now() - timestampMs(activity.lastHeartbeatTime)) : 0;
    if (typeof details?.step === 'string' && typeof details.waiting === 'string')
      waits.push({ step: details.step, waiting: details.waiting, elapsedMs: (details.elapsedMs ?? 0) + since });
  }
  return waits;
}

/** What a step's last heartbeat says while it waits for the artifact store (support/store-retry.ts): its step and why. */
function storeWaiting(
  client: Client,
  pending: readonly proto.temporal.api.workflow.v1.IPendingActivityInfo[],
): { readonly step: string; readonly waiting: string } | null {
  return waitingSteps(client, pending).find((wait) => STORE_STEPS.has(wait.step)) ?? null;
}

/** What a package step's last heartbeat says while its upload waits for the artifact store. */
export function uploadWaiting(
  client: Client,
  pending: readonly proto.temporal.api.workflow.v1.IPendingActivityInfo[],
): string | null {
  const wait = storeWaiting(client, pending);
  return wait?.step === 'upload'
    ? `packaging: the package is made, and its upload waits for the artifact store: ${wait.waiting}`
    : null;
}

/**
 * With loop.yaml `artifacts:`, one line for each in-flight job that waits for the artifact store:
 * a lane step fetching or uploading (its activity's last heartbeat), or a training run whose job
 * inputs the store did not take (the run's current details). A job that does not answer says nothing.
 */
export async function storeWaitLines(
  client: Client,
  view: LoopView,
  flights: readonly FlightActivities[],
): Promise<string[]> {
  if (view.artifact_store === undefined) return [];
  const lines = await Promise.all(
    flights.map(async ({ flight, pending }): Promise<string | null> => {
      const wait = storeWaiting(client, pending);
      if (wait !== null) return `store: ${flight.jobId} on ${flight.lane} waits to ${wait.step}: ${wait.waiting}`;
      if (flight.kind !== 'run') return null;
      try {
        const details = (await client.workflow.getHandle(flight.childId).query(workflowMetadataQuery)).currentDetails;
        return (details ?? '').startsWith(STORE_WAIT_DETAILS) ? `store: ${flight.jobId}: ${details ?? ''}` : null;
      } catch {
        return null;
      }
    }),
  );
  return lines.filter((line): line is string => line !== null);
}

/**
 * One line for each in-flight job whose step waits on a GPU lane for device memory: the job, the
 * lane, for how long, and the lane's words (what it needs, what is free, what others hold).
 */
export function memoryWaitLines(client: Client, flights: readonly FlightActivities[]): string[] {
  return flights.flatMap(({ flight, pending }) => {
    const wait = waitingSteps(client, pending).find((one) => !STORE_STEPS.has(one.step));
    return wait === undefined
      ? []
      : [
          `gpu: ${flight.jobId} on ${flight.lane} waits ${duration(Math.round(wait.elapsedMs / 1000))} to ${wait.step}: ${wait.waiting}`,
        ];
  });
}
