import type { LaneAdmission } from '../types.js';
import type { StepResult } from './step-types.js';
import { definedFields } from '../../support/defined-fields.js';

/**
 * How the lane admitted a step, when it admitted it by its device's memory (it read the device):
 * the facts of the seed's `dispatch` rows. Undefined on a CPU lane or one without a reading.
 */
export function laneAdmission(result: StepResult): LaneAdmission | undefined {
  const admitted = result.admitted;
  if (result.gpu === undefined || admitted?.worker === undefined || admitted.device === undefined) return undefined;
  return {
    worker: admitted.worker,
    physical_device: admitted.device,
    slot: admitted.slot,
    need_mib: admitted.needMiB,
    admitted: result.started,
    ...definedFields({ total_mib: result.gpu.totalMiB }),
  };
}
