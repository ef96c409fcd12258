import { CANDIDATE_NAME_MAX } from '../config/candidates.js';
import { runIdFor } from '../rules/ids.js';
import {
  loopWorkflowId,
  packagingWorkflowId,
  reserveCheckWorkflowId,
  teacherBuildWorkflowId,
  trainingRunWorkflowId,
} from '../workflows/ids.js';

// A loop id becomes part of every workflow id the loop derives (its generation, training runs,
// teacher builds, reserve checks, packaging), and Temporal refuses a longer workflow id than its
// limit in the workflow task that starts it, where nobody sees it. So `start` checks the longest
// id the loop could ever derive before it starts anything.

const LOOP_ID_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*$/;

/** Temporal's longest workflow id (the server's `limit.maxIDLength`, 1,000 unless an operator lowered it). */
export const WORKFLOW_ID_MAX = 1_000;

/** A checkpoint's file name is one path segment: at most 255 bytes on every common file system. */
const FILE_NAME_MAX = 255;

/** The longest workflow id loop `loopId` can derive: the largest numbers, the longest names. */
export function longestDerivedId(loopId: string): string {
  const candidate = 'c'.repeat(CANDIDATE_NAME_MAX);
  const big = 99_999;
  const ids = [
    loopWorkflowId(loopId),
    packagingWorkflowId(loopId),
    trainingRunWorkflowId(loopId, big, big, candidate, big, big),
    teacherBuildWorkflowId(loopId, big, big, big),
    reserveCheckWorkflowId(
      loopId,
      big,
      runIdFor(big, big, candidate),
      `${'k'.repeat(FILE_NAME_MAX - 3)}.pt`,
      Number.MAX_SAFE_INTEGER,
      big,
      big,
    ),
  ];
  return ids.reduce((longest, id) => (id.length > longest.length ? id : longest));
}

/** The longest loop id whose derived ids all fit Temporal's limit. */
export const LOOP_ID_MAX = WORKFLOW_ID_MAX - longestDerivedId('').length;

/** Why `loopId` cannot name a loop; null when it can. */
export function loopIdProblem(loopId: string): string | null {
  if (!LOOP_ID_PATTERN.test(loopId)) return `loop id '${loopId}' must be letters, digits, '_', '-', '.'`;
  if (loopId.length > LOOP_ID_MAX)
    return (
      `loop id '${loopId.slice(0, 40)}...' is ${loopId.length} characters, at most ${LOOP_ID_MAX} fit: every workflow ` +
      `id the loop derives from it (a reserve check's, for one, is ${longestDerivedId('').length} characters more) must ` +
      `fit Temporal's ${WORKFLOW_ID_MAX}-character limit. Choose a shorter loop id; nothing was started`
    );
  return null;
}
