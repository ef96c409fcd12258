import { deprecatePatch } from '@temporalio/workflow';
import { BASELINE } from './patches.js';

/**
 * Records the baseline's marker in this run's history (patches.ts), or, replaying a run recorded
 * before the baseline, finds none and changes nothing. Called first by every workflow.
 */
export function markBaseline(): void {
  deprecatePatch(BASELINE);
}
