// What each of a loop's in-flight jobs does on its lane, read from its activity's last heartbeat
// (the route memory waits take, step-waits.ts): on a lane that admits steps by GPU memory each
// step's beat also carries its device as the lane last read it (StepHeartbeat `device`).
// render-devices.ts turns these into the lanes' device lines.
import type { Client } from '@temporalio/client';
import proto from '@temporalio/proto';
import type { LoopView } from '../workflows/loop-view.js';
import { timestampMs } from './proto-time.js';
import type { JobOnDevice } from './render-devices.js';
import { lastBeat, STORE_STEPS, type FlightActivities } from './step-waits.js';

type Flight = LoopView['in_flight'][number];
type Pending = proto.temporal.api.workflow.v1.IPendingActivityInfo;

/** One job from its pending activities: its step's beat if one beat, else whether a worker took it. */
function jobOf(client: Client, flight: Flight, pending: readonly Pending[]): JobOnDevice {
  const { PENDING_ACTIVITY_STATE_STARTED } = proto.temporal.api.enums.v1.PendingActivityState;
  const job = { jobId: flight.jobId, lane: flight.lane };
  for (const activity of pending) {
    const beat = lastBeat(client, activity);
    if (typeof beat?.step !== 'string') continue;
    const beatMs = timestampMs(activity.lastHeartbeatTime);
    const sinceMs = beatMs - (beat.elapsedMs ?? 0);
    const device = beat.device === undefined ? {} : { device: beat.device, beatMs };
    if (typeof beat.waiting === 'string' && STORE_STEPS.has(beat.step))
      return { ...job, state: 'starting', step: beat.step, sinceMs, ...device };
    const state = typeof beat.waiting === 'string' ? 'waiting' : 'running';
    return { ...job, state, step: beat.step, sinceMs, ...device };
  }
  const started = pending.find((activity) => activity.state === PENDING_ACTIVITY_STATE_STARTED);
  if (started !== undefined)
    return { ...job, state: 'starting', sinceMs: timestampMs(started.lastStartedTime) || Date.parse(flight.since) };
  return { ...job, state: pending.length > 0 ? 'queued' : 'starting', sinceMs: Date.parse(flight.since) };
}

/** What each in-flight job of the loop does on its lane (those that answered `flightActivities`). */
export function jobsOnDevices(client: Client, flights: readonly FlightActivities[]): JobOnDevice[] {
  return flights.map(({ flight, pending }) => jobOf(client, flight, pending));
}
