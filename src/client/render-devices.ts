// A GPU lane's device as `status` and `watch` show it (pure): the card's size and free memory,
// what this loop's jobs hold of it and what others hold, and each of this loop's jobs on the lane:
// running, starting, queued for a slot or waiting for memory, what it needs and since when. The
// figures come from the jobs' step heartbeats (client/lane-devices.ts), each as its lane last read it.
import type { StepDevice } from '../activities/support/step-types.js';
import { duration } from './render-status.js';
import { definedFields } from '../support/defined-fields.js';

/** What one of this loop's in-flight jobs does on its lane, as its activity's last heartbeat says. */
export interface JobOnDevice {
  readonly jobId: string;
  readonly lane: string;
  /** running: its step runs; waiting: its step waits for device memory; starting: taken, no step yet; queued: waits for a slot. */
  readonly state: 'running' | 'waiting' | 'starting' | 'queued';
  readonly step?: string;
  /** Since when it is in that state (ms since the epoch). */
  readonly sinceMs: number;
  /** Its device as its last heartbeat said, and when that heartbeat came (ms since the epoch). */
  readonly device?: StepDevice;
  readonly beatMs?: number;
}

/** One GPU lane's device as this loop sees it, in MiB. */
export interface LaneDevice {
  readonly lane: string;
  readonly index: number;
  readonly totalMiB: number;
  readonly freeMiB: number;
  /** What this loop's running jobs' processes hold, and how many jobs run. */
  readonly thisLoopMiB: number;
  readonly thisLoopJobs: number;
  /** What the rest of the card's used memory is: other loops' jobs, outside processes, the driver. */
  readonly othersMiB: number;
  readonly jobs: readonly JobOnDevice[];
}

/**
 * Each lane one of whose jobs reported a device: its freshest reading, with what this loop's
 * running jobs hold of it (each as its own last heartbeat said) and what the rest of its used
 * memory is. Lanes none of whose jobs reported a device (CPU lanes, none beat yet) are left out.
 */
export function laneDevices(jobs: readonly JobOnDevice[]): LaneDevice[] {
  const lanes = [...new Set(jobs.map((job) => job.lane))].sort();
  const devices: LaneDevice[] = [];
  for (const lane of lanes) {
    const onLane = jobs.filter((job) => job.lane === lane);
    const freshest = onLane
      .filter((job) => job.device !== undefined)
      .sort((a, b) => (b.beatMs ?? 0) - (a.beatMs ?? 0))[0]?.device;
    if (freshest === undefined) continue;
    const running = onLane.filter((job) => job.state === 'running');
    const thisLoopMiB = running.reduce((sum, job) => sum + (job.device?.heldMiB ?? 0), 0);
    const used = freshest.totalMiB - freshest.freeMiB;
    devices.push({
      lane,
      index: freshest.index,
      totalMiB: freshest.totalMiB,
      freeMiB: freshest.freeMiB,
      thisLoopMiB,
      thisLoopJobs: running.length,
      othersMiB: Math.max(0, used - thisLoopMiB),
      jobs: onLane,
    });
  }
  return devices;
}

/** `13:05:40 (12s)`: a time of day (UTC) and how long ago. */
function since(ms: number, now: Date): string {
  const ago = Math.max(0, Math.round((now.getTime() - ms) / 1000));
  return `${new Date(ms).toISOString().slice(11, 19)} (${duration(ago)})`;
}

/** `device 0: 143771 MiB, free 60211, this loop 52000 (3 jobs), others 30942`. */
export function deviceLine(device: LaneDevice): string {
  const jobs = `${device.thisLoopJobs} job${device.thisLoopJobs === 1 ? '' : 's'}`;
  return `device ${device.index}: ${device.totalMiB} MiB, free ${device.freeMiB}, this loop ${device.thisLoopMiB} (${jobs}), others ${device.othersMiB}`;
}

/** One job on its lane: what it does, since when, what it needs and holds. */
export function jobLine(job: JobOnDevice, now: Date): string {
  const need = job.device === undefined ? '' : `, needs ${job.device.needMiB} MiB`;
  const step = job.step === undefined ? '' : ` ${job.step}`;
  switch (job.state) {
    case 'running':
      return `${job.jobId} running${step} since ${since(job.sinceMs, now)}${job.device === undefined ? '' : `, holds ${job.device.heldMiB} of ${job.device.needMiB} MiB`}`;
    case 'waiting':
      return `${job.jobId} waiting for memory to${step} since ${since(job.sinceMs, now)}${need}`;
    case 'starting':
      return `${job.jobId} starting since ${since(job.sinceMs, now)}`;
    case 'queued':
      return `${job.jobId} queued for a slot since ${since(job.sinceMs, now)}`;
  }
}

/** `status`'s block: per GPU lane its device line, then one line per job of this loop on it. */
export function deviceLines(devices: readonly LaneDevice[], now: Date): string[] {
  return devices.flatMap((device) => [
    `gpu lane ${device.lane}, ${deviceLine(device)}`,
    ...device.jobs.map((job) => `  ${jobLine(job, now)}`),
  ]);
}

/** `status --json`'s `lane_devices`: the same, as fields (MiB; times as ISO strings). */
export function deviceJson(devices: readonly LaneDevice[]): object[] {
  return devices.map((device) => ({
    lane: device.lane,
    device: device.index,
    total_mib: device.totalMiB,
    free_mib: device.freeMiB,
    this_loop_mib: device.thisLoopMiB,
    this_loop_jobs: device.thisLoopJobs,
    others_mib: device.othersMiB,
    jobs: device.jobs.map((job) => ({
      job_id: job.jobId,
      state: job.state,
      ...definedFields({ step: job.step }),
      since: new Date(job.sinceMs).toISOString(),
      ...definedFields({ need_mib: job.device?.needMiB, held_mib: job.device?.heldMiB }),
    })),
  }));
}
