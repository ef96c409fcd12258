import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { parseScores, type ScoresRow } from '../../contract/scores.js';
import { evalScoresPath } from '../../ledger/eval-row.js';
import { itemErrorsOf, type Band, type ItemErrors } from '../../rules/item-errors.js';
import type { EvalRow } from '../../rules/types.js';
import { activityHooks } from './activity-context.js';
import type { LoopPaths } from '../types.js';

/**
 * The identity of a scores file's test items: the first 16 hex digits of the SHA-256 of its
 * ordered (id, target) pairs, the line number standing in for a missing id. Two checkpoints can be
 * compared item by item exactly when their identities agree (same items, same order).
 */
export function itemsIdentity(rows: readonly ScoresRow[]): string {
  const hash = createHash('sha256');
  rows.forEach((row, index) => {
    const id = row['id'] === undefined ? `#${index}` : JSON.stringify(row['id']);
    hash.update(`${id}\t${row.target}\n`);
  });
  return hash.digest('hex').slice(0, 16);
}

function bandOf(row: EvalRow): Band | null {
  const band = row.reject_band as { low?: unknown; high?: unknown } | null;
  return band !== null && typeof band === 'object' && typeof band.low === 'number' && typeof band.high === 'number'
    ? { low: band.low, high: band.high }
    : null;
}

/**
 * An ok eval row with its per-item error record (loop.yaml `champion_rule: paired`), read from the
 * checkpoint's scores file. Without a readable scores file (or, for `decided`, a reject band) the
 * row goes on without one: the fold then decides by dominance and says why (docs/behaviour.md, 5).
 */
export async function withItemErrors(paths: LoopPaths, row: EvalRow, block: 'result' | 'decided'): Promise<EvalRow> {
  if (row.status !== 'ok') return row;
  const file = evalScoresPath(paths.stateDir, row.run_id, row.checkpoint_name, row.role);
  const band = block === 'decided' ? bandOf(row) : null;
  if (block === 'decided' && band === null) return row;
  let errors: ItemErrors;
  try {
    const rows = parseScores(await readFile(file, 'utf8'), file);
    errors = itemErrorsOf(itemsIdentity(rows), rows, band);
  } catch (error) {
    activityHooks().warn(
      `no per-item record for ${row.run_id} ${row.checkpoint_name}: the paired rule falls back to dominance`,
      {
        scores: file,
        error: error instanceof Error ? error.message : String(error),
      },
    );
    return row;
  }
  return { ...row, item_errors: errors };
}
