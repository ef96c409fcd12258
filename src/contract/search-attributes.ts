import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// The custom search attributes temporal-dev.yaml registers; a cluster needs the same (docs/operating.md, "On another Temporal cluster").

/** Which loop a workflow belongs to. */
export const LOOP_ID = defineSearchAttributeKey('LoopId', SearchAttributeType.KEYWORD);
/** generation | training-run | reserve-check | teacher-build | packaging. */
export const LOOP_KIND = defineSearchAttributeKey('LoopKind', SearchAttributeType.KEYWORD);
export const GENERATION = defineSearchAttributeKey('Generation', SearchAttributeType.INT);
export const ROUND = defineSearchAttributeKey('Round', SearchAttributeType.INT);
export const CANDIDATE = defineSearchAttributeKey('Candidate', SearchAttributeType.KEYWORD);
/** The generation's current champion as `run_id/checkpoint_name`. */
export const CHAMPION = defineSearchAttributeKey('Champion', SearchAttributeType.KEYWORD);

export type LoopKind = 'generation' | 'training-run' | 'reserve-check' | 'teacher-build' | 'packaging';
