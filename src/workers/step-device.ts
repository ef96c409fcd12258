// What a step's heartbeat says of its lane's device (StepDevice): pure, from the lane's last reading.
import type { StepDevice } from '../activities/support/step-types.js';
import type { GpuReading } from './gpu-memory.js';
import { usedByStep } from './lane-steps.js';

/** The step `mark`'s device on `reading`: the card's size and free memory, what its processes hold, its need; null off a GPU. */
export function stepDevice(
  reading: GpuReading | null,
  mark: string,
  needMiB: number,
  markOf: (pid: number) => string | null,
): StepDevice | null {
  if (reading?.kind !== 'gpu') return null;
  const { index, totalMiB, freeMiB } = reading.memory;
  const heldMiB = usedByStep(reading.processes, markOf).get(mark) ?? 0;
  return { index, totalMiB, freeMiB, heldMiB, needMiB };
}
