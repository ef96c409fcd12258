// Where a lane step stands in its lane's queue (Temporal's Task Queue Priority and Fairness): its
// priority from its kind, shifted by the loop's loop.yaml `priority`, and its loop's id as the
// fairness key, weighted by loop.yaml `fairness_weight`, so loops sharing a lane share it by weight
// however many jobs each queued (docs/operating.md, "Several loops on one fleet"). Pure: workflows
// (where each step is started) and the client (what `status` shows) compute it alike.
import type { Priority } from '@temporalio/common';
import type { StepKind } from '../contract/steps.js';
import { definedFields } from '../support/defined-fields.js';

/** The kinds of lane step (each lane step's `kind` in the catalogue, contract/steps.ts), each with its place in the queue. */
export type { StepKind };

/**
 * Smaller runs first (Temporal's priority key). A reserve check and an evaluation unblock a
 * decision of their generation; a teacher build unblocks its students; a new training waits.
 */
export const STEP_PRIORITY: Readonly<Record<StepKind, number>> = {
  reserve: 1,
  evaluation: 2,
  teacher: 3,
  training: 4,
};

// The priority levels a server needs for every key this project sets: training's key plus
// LOOP_PRIORITY_MAX of config/lanes.ts (temporal-dev.yaml `matching.priorityLevels`; Temporal's default is 5, and a
// key over it counts as the last level).

/** Temporal's limit on a fairness key, in bytes. */
const FAIRNESS_KEY_MAX = 64;

/** What a loop says of its place among the loops on its lanes (loop.yaml, both optional). */
export interface LoopQueueing {
  /** loop.yaml `priority`: 0 (absent) for a production gate, up to LOOP_PRIORITY_MAX for an experiment that yields. */
  readonly priority?: number;
  /** loop.yaml `fairness_weight`: its share of a lane against other loops' (absent: 1, Temporal's default). */
  readonly fairnessWeight?: number;
}

/** FNV-1a of an ASCII string, 8 hex digits: a loop id too long for a fairness key keeps a stable tail. */
function shortHash(text: string): string {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index += 1) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193) >>> 0;
  }
  return hash.toString(16).padStart(8, '0');
}

/**
 * A loop's fairness key: its id, or (an id over Temporal's 64 bytes) its first 55 characters, '~'
 * and a hash of the whole id. Loop ids are ASCII (client/loop-id.ts), so characters are bytes.
 */
function fairnessKeyOf(loopId: string): string {
  if (loopId.length <= FAIRNESS_KEY_MAX) return loopId;
  return `${loopId.slice(0, FAIRNESS_KEY_MAX - 9)}~${shortHash(loopId)}`;
}

/** A step's priority key: its kind's place, shifted by its loop's priority. */
function priorityKeyOf(kind: StepKind, queueing: LoopQueueing = {}): number {
  return STEP_PRIORITY[kind] + (queueing.priority ?? 0);
}

/** The Temporal priority a step of `kind` of loop `loopId` is started with (an activity or a child workflow). */
export function stepPriority(loopId: string, kind: StepKind, queueing: LoopQueueing = {}): Priority {
  return {
    priorityKey: priorityKeyOf(kind, queueing),
    fairnessKey: fairnessKeyOf(loopId),
    ...definedFields({ fairnessWeight: queueing.fairnessWeight }),
  };
}

/** What a job's input carries of loop.yaml's `priority` and `fairness_weight`: only what is set. */
export function loopQueueingOf(config: { readonly priority?: number; readonly fairness_weight?: number }): {
  priority?: number;
  fairnessWeight?: number;
} {
  return {
    ...definedFields({ priority: config.priority, fairnessWeight: config.fairness_weight }),
  };
}
