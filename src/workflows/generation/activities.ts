// The orchestrator steps a generation calls (candidates, split, manifests, file checks, packaging
// requests, a child's outcome, the idle wait), each with its own limits from the catalogue of
// steps (contract/steps.ts) and the loop's loop.yaml.
import type { ActivityInterfaceFor } from '@temporalio/workflow';
import type { LoopConfig } from '../../config/loop-config.js';
import type { LoopActivities } from '../activity-types.js';
import { stepCalls } from '../step-options.js';

export type GenerationActivities = ActivityInterfaceFor<LoopActivities>;

export function generationActivities(config: LoopConfig): GenerationActivities {
  return stepCalls(config);
}
