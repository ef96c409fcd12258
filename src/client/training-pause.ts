// Pausing a training run the way Temporal offers it: the PauseActivity and UnpauseActivity calls
// that `temporal activity pause` / `unpause` and the Web UI's pause button make, on the trainRun
// activity of the run's training child. The server tells the lane at the training's next
// heartbeat, the lane stops the trainer's process group as it stops a job (SIGTERM, then SIGKILL
// after its kill grace), and the server holds the activity, failed by nobody and retried by
// nobody, until it is unpaused: then it runs again on its lane (from its newest checkpoint with
// loop.yaml `resume_flag`). The training run's workflow sees nothing of it.
import { randomUUID } from 'node:crypto';
import type { Client } from '@temporalio/client';
import type proto from '@temporalio/proto';
import type { LoopView } from '../workflows/loop-view.js';
import { loopStatus } from './loop-look.js';
import { timestampMs } from './proto-time.js';

type PendingActivity = proto.temporal.api.workflow.v1.IPendingActivityInfo;

/** PENDING_ACTIVITY_STATE_PAUSE_REQUESTED (5): paused on the server, still running on its lane. */
const PAUSE_REQUESTED: number = 5;

/** The lane activity that trains a run (src/activities/train-run.ts). */
const TRAINING = 'trainRun';

/** A run's training as its child shows it: where it runs and its pending trainRun activity. */
export interface RunTraining {
  readonly loopId: string;
  readonly runId: string;
  readonly childId: string;
  readonly lane: string;
  readonly activity: PendingActivity;
}

/** A paused training as `status` says it: the run, its lane, since when, by whom and why. */
export interface PausedTraining {
  readonly run_id: string;
  readonly lane: string;
  /** `paused`: held by the server, its trainer stopped; `pausing`: its trainer still runs until its next heartbeat. */
  readonly state: 'paused' | 'pausing';
  readonly since: string | null;
  readonly by: string | null;
  readonly reason: string | null;
}

/**
 * The training of run `runId` in loop `loopId`, now: refused with a clear error when the loop is
 * unknown or not running, when the run is not in flight, or when its job is not training (it is
 * preparing, or scoring its checkpoints).
 */
export async function runTraining(client: Client, loopId: string, runId: string): Promise<RunTraining> {
  const view = await loopStatus(client, loopId);
  const flight = view.in_flight.find((job) => job.kind === 'run' && job.jobId === runId);
  if (flight === undefined) {
    const runs = view.in_flight.filter((job) => job.kind === 'run').map((job) => job.jobId);
    throw new Error(
      `run '${runId}' of loop '${loopId}' is not in flight (${runs.length === 0 ? 'no run is' : `in flight: ${runs.join(', ')}`}); only a run that trains can be paused or unpaused`,
    );
  }
  const description = await client.workflow.getHandle(flight.childId).describe();
  const pending = description.raw.pendingActivities ?? [];
  const activity = pending.find((one) => one.activityType?.name === TRAINING);
  if (activity === undefined) {
    const doing = pending.map((one) => one.activityType?.name ?? '?');
    throw new Error(
      `run '${runId}' of loop '${loopId}' is not training now (its job ${flight.childId} ${doing.length === 0 ? 'has no step on its lane' : `runs ${doing.join(', ')}`}); only a training is paused`,
    );
  }
  return { loopId, runId, childId: flight.childId, lane: flight.lane, activity };
}

/** Pause a run's training; false when it was paused already (nothing is sent then). */
export async function pauseTraining(client: Client, training: RunTraining, reason: string): Promise<boolean> {
  if (training.activity.paused === true) return false;
  await client.workflowService.pauseActivity({
    namespace: client.options.namespace,
    execution: { workflowId: training.childId },
    identity: client.options.identity,
    id: training.activity.activityId ?? '',
    reason,
    requestId: randomUUID(),
  });
  return true;
}

/**
 * Unpause a run's paused training: it is scheduled on its lane at once, its attempts reset (a
 * pause costs the run no attempt at training). Refused when it is not paused.
 */
export async function unpauseTraining(client: Client, training: RunTraining): Promise<void> {
  if (training.activity.paused !== true)
    throw new Error(
      `run '${training.runId}' of loop '${training.loopId}' trains and is not paused: nothing to unpause`,
    );
  await client.workflowService.unpauseActivity({
    namespace: client.options.namespace,
    execution: { workflowId: training.childId },
    identity: client.options.identity,
    id: training.activity.activityId ?? '',
    resetAttempts: true,
    resetHeartbeat: false,
  });
}

/** What the pause of a pending training says: since when, by whom and why (the CLI, the Web UI, a rule). */
function pauseOf(runId: string, lane: string, activity: PendingActivity): PausedTraining {
  const info = activity.pauseInfo;
  const ms = timestampMs(info?.pauseTime);
  return {
    run_id: runId,
    lane,
    state: Number(activity.state) === PAUSE_REQUESTED ? 'pausing' : 'paused',
    since: ms > 0 ? new Date(ms).toISOString() : null,
    by: info?.manual?.identity || info?.rule?.identity || null,
    reason: info?.manual?.reason || info?.rule?.reason || null,
  };
}

/** Every training of the loop's in-flight runs that is paused now; a job that does not answer says nothing. */
export async function pausedTrainings(client: Client, view: LoopView): Promise<PausedTraining[]> {
  const found = await Promise.all(
    view.in_flight
      .filter((job) => job.kind === 'run')
      .map(async (job): Promise<PausedTraining | null> => {
        try {
          const description = await client.workflow.getHandle(job.childId).describe();
          const activity = (description.raw.pendingActivities ?? []).find(
            (one) => one.activityType?.name === TRAINING && one.paused === true,
          );
          return activity === undefined ? null : pauseOf(job.jobId, job.lane, activity);
        } catch {
          return null;
        }
      }),
  );
  return found.filter((paused): paused is PausedTraining => paused !== null);
}

/** `status`'s line for a paused training, saying how it goes on. */
export function pausedLine(loopId: string, paused: PausedTraining): string {
  const since = paused.since === null ? '' : ` since ${paused.since}`;
  const by = paused.by === null ? '' : ` by ${paused.by}`;
  const why = paused.reason === null ? '' : ` (${paused.reason})`;
  const what =
    paused.state === 'paused'
      ? 'its training is paused'
      : 'its training is pausing (its trainer stops at its next heartbeat)';
  return `paused: ${paused.run_id} on ${paused.lane}: ${what}${since}${by}${why}; 'champion-loop unpause ${loopId} ${paused.run_id}' goes on`;
}
