import { readFile, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { readPareto, readScores, readSelection } from '../../contract/read.js';
import { gateAuc } from '../../rules/gate-auc.js';
import { checkpointEpoch, zeroPad } from '../../rules/ids.js';

// What training left in a run directory (docs/contract.md, train).

/** Checkpoint file names to score: every pareto.json entry, then selection.json's, without duplicates. */
export async function collectCheckpoints(dir: string): Promise<string[]> {
  const named = new Map<string, string>();
  const pareto = join(dir, 'pareto.json');
  if (await isFile(pareto)) {
    for (const entry of (await readPareto(pareto)).checkpoints) {
      if (!named.has(entry.checkpoint)) named.set(entry.checkpoint, pareto);
    }
  }
  const selection = join(dir, 'selection.json');
  const selected = (await readSelection(selection)).checkpoint;
  if (!named.has(selected)) named.set(selected, selection);
  for (const [name, source] of named) {
    if (!(await isFile(join(dir, name)))) {
      throw new Error(`${source} names checkpoint ${name}, which is not a file in ${dir}`);
    }
  }
  return [...named.keys()];
}

/** Epochs training validated: the `validation-epoch-*.json` files (not their `.scores.jsonl`). */
export async function epochsRun(dir: string): Promise<number> {
  try {
    return (await readdir(dir)).filter((name) => name.startsWith('validation-epoch-') && name.endsWith('.json')).length;
  } catch {
    return 0;
  }
}

/** An epoch an earlier training attempt completed: its checkpoint and its validation metrics are there. */
export interface ResumePoint {
  readonly epoch: number;
  /** The checkpoint's file (or folder) name in the run directory. */
  readonly checkpoint: string;
}

/** A checkpoint as training writes it: `checkpoint-NNNN` with at most one extension (no temp or hidden file). */
const CHECKPOINT_NAME = /^checkpoint-(\d+)(\.[A-Za-z0-9]+)?$/;
const VALIDATION_NAME = /^validation-epoch-(\d+)\.json$/;

/**
 * The epochs a run directory's entries show complete, newest first: both a checkpoint and the
 * epoch's `validation-epoch-NNNN.json` are there (a trainer writes the checkpoint first, so an
 * epoch cut short has at most its checkpoint). Pure: the caller checks the metrics parse.
 */
export function completeEpochs(names: readonly string[]): ResumePoint[] {
  const validated = new Set<number>();
  const checkpoints = new Map<number, string>();
  for (const name of [...names].sort()) {
    const validation = VALIDATION_NAME.exec(name);
    if (validation?.[1] !== undefined) validated.add(Number.parseInt(validation[1], 10));
    const checkpoint = CHECKPOINT_NAME.exec(name);
    if (checkpoint?.[1] === undefined) continue;
    const epoch = Number.parseInt(checkpoint[1], 10);
    if (!checkpoints.has(epoch)) checkpoints.set(epoch, name);
  }
  return [...checkpoints]
    .filter(([epoch]) => validated.has(epoch))
    .map(([epoch, checkpoint]) => ({ epoch, checkpoint }))
    .sort((a, b) => b.epoch - a.epoch);
}

/**
 * Where a lost training attempt can be resumed from: the newest complete epoch whose validation
 * metrics parse as JSON (one torn by a trainer killed mid-write is passed over); null for none.
 */
export async function resumePoint(dir: string): Promise<ResumePoint | null> {
  for (const point of completeEpochs(await readdir(dir))) {
    try {
      JSON.parse(await readFile(validationFile(dir, point.checkpoint, 'json'), 'utf8'));
      return point;
    } catch {
      // Torn or unreadable: an earlier epoch is the newest complete one.
    }
  }
  return null;
}

/** `validation-epoch-NNNN.<suffix>` of a checkpoint's epoch. */
export function validationFile(dir: string, checkpointName: string, suffix: 'json' | 'scores.jsonl'): string {
  return join(dir, `validation-epoch-${zeroPad(checkpointEpoch(checkpointName), 4)}.${suffix}`);
}

/**
 * Validation gate AUC of one checkpoint from training's per-epoch scores file; null when the
 * file is missing or not the evaluator's JSONL (ensemble ranking then falls back).
 */
export async function validationGateAuc(dir: string, checkpointName: string): Promise<number | null> {
  try {
    const rows = await readScores(validationFile(dir, checkpointName, 'scores.jsonl'));
    return gateAuc(
      rows.map((row) => row.margin),
      rows.map((row) => row.target),
    );
  } catch {
    return null;
  }
}

/** Training's selected checkpoint with its validation false negatives and gate AUC; null without a usable selection. */
export async function selectedCheckpoint(
  dir: string,
): Promise<{ checkpoint: string; falseNegatives: number | null; validationGateAuc: number | null } | null> {
  try {
    const selection = await readSelection(join(dir, 'selection.json'));
    return {
      checkpoint: selection.checkpoint,
      falseNegatives: selection.false_negatives ?? null,
      validationGateAuc: await validationGateAuc(dir, selection.checkpoint),
    };
  } catch {
    return null;
  }
}

async function isFile(path: string): Promise<boolean> {
  try {
    return (await stat(path)).isFile();
  } catch {
    return false;
  }
}
