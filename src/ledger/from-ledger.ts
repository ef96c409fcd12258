import { parseLedger, rowTime } from './ledger-lines.js';
import {
  applyRow,
  initialLoopState,
  stateJson,
  type FoldSettings,
  type LoopState,
  type StateJson,
} from './loop-state.js';
import type { LedgerRow } from './rows.js';

export { LedgerLineError } from './ledger-lines.js';

const FOLDED = new Set(['generation', 'eval', 'reserve_check']);

/** The loop state a ledger's rows fold to; rows of kinds the state does not depend on are skipped. */
export function foldRows(rows: readonly LedgerRow[], settings: FoldSettings): LoopState {
  let state = initialLoopState();
  for (const row of rows) if (FOLDED.has(row.type)) state = applyRow(state, row, settings);
  return state;
}

/** When the last row happened: state.json's `updated`. */
export function lastRowTime(rows: readonly LedgerRow[]): string {
  const last = rows[rows.length - 1];
  return last ? rowTime(last) : '';
}

/**
 * The state.json an existing seed-format ledger.jsonl folds to (for teams moving from the Python
 * loop).
 */
export function stateFromLedger(text: string, file: string, settings: FoldSettings, stateDir: string): StateJson {
  const { rows } = parseLedger(text, file);
  return stateJson(foldRows(rows, settings), stateDir, lastRowTime(rows));
}
