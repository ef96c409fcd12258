// A step's device in words, for its heartbeat (`gpu`): what the Web UI shows of a lane step's GPU
// in the pending activity's heartbeat details, as `status` shows it (client/render-devices.ts). Pure.
import type { StepDevice, StepHeartbeat } from './step-types.js';

/**
 * `train running since 13:08:00Z (12m), holds 30000 of 40960 MiB; device 0: 143771 MiB, free 60211`,
 * or `train waiting for GPU memory since 13:19:00Z (1m), needs 65536 MiB; device 0: ...`.
 */
export function deviceWords(details: Omit<StepHeartbeat, 'gpu'>, device: StepDevice, nowMs: number): string {
  const since = new Date(nowMs - details.elapsedMs).toISOString().slice(11, 19);
  const minutes = Math.floor(details.elapsedMs / 60_000);
  const ago = minutes > 0 ? `${minutes}m` : `${Math.floor(details.elapsedMs / 1000)}s`;
  const what =
    details.waiting === undefined
      ? `running since ${since}Z (${ago}), holds ${device.heldMiB} of ${device.needMiB} MiB`
      : `waiting for GPU memory since ${since}Z (${ago}), needs ${device.needMiB} MiB`;
  return `${details.step} ${what}; device ${device.index}: ${device.totalMiB} MiB, free ${device.freeMiB}, as the lane last read it`;
}
