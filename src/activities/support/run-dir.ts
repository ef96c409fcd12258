import { readdir, stat } from 'node:fs/promises';
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
