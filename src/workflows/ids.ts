import { checkpointStem, padGeneration, padRound } from '../rules/ids.js';

// Workflow ids that read like the ledger: loop, generation, round, candidate.

/** The generation workflow of a loop: one id for the loop's whole life, a new run per generation. */
export function loopWorkflowId(loopId: string): string {
  return `champion-loop/${loopId}`;
}

/** The packaging workflow of a loop. */
export function packagingWorkflowId(loopId: string): string {
  return `champion-loop/${loopId}/packaging`;
}

/**
 * What the ids of a loop's children start with: `champion-loop/<loop>`, then `/i<N>` from the
 * loop's second incarnation on (each `start --fresh` is a new one), so a fresh loop never meets
 * an old loop's children under its own ids.
 */
function childIdPrefix(loopId: string, incarnation: number): string {
  return incarnation > 1 ? `${loopWorkflowId(loopId)}/i${incarnation}` : loopWorkflowId(loopId);
}

/** A training run child: `champion-loop/<loop>/g001/r0004/<candidate>`, `.2` and up for a retry elsewhere. */
export function trainingRunWorkflowId(
  loopId: string,
  generation: number,
  round: number,
  candidate: string,
  attempt: number,
  incarnation = 1,
): string {
  const base = `${childIdPrefix(loopId, incarnation)}/g${padGeneration(generation)}/r${padRound(round)}/${candidate}`;
  return attempt > 1 ? `${base}.${attempt}` : base;
}

/** A reserve check child: names the champion and the test eval count that made it due. */
export function reserveCheckWorkflowId(
  loopId: string,
  generation: number,
  runId: string,
  checkpointName: string,
  testEvals: number,
  attempt: number,
  incarnation = 1,
): string {
  const base = `${childIdPrefix(loopId, incarnation)}/g${padGeneration(generation)}/reserve/${runId}/${checkpointStem(checkpointName)}/n${testEvals}`;
  return attempt > 1 ? `${base}.${attempt}` : base;
}

/** A teacher build child: `champion-loop/<loop>/g001/teacher`. */
export function teacherBuildWorkflowId(loopId: string, generation: number, attempt: number, incarnation = 1): string {
  const base = `${childIdPrefix(loopId, incarnation)}/g${padGeneration(generation)}/teacher`;
  return attempt > 1 ? `${base}.${attempt}` : base;
}
