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

/**
 * state.json's `updated`: the newest time a row records (`since` when none is newer; '' for no rows). Not the last row's: rows
 * come in the order the workflow handled them, and a run row's time is when its trainer finished,
 * which can be before the time of a row handled earlier in the same workflow task.
 */
export function updatedTime(rows: readonly LedgerRow[], since = ''): string {
  // ISO times of one format order as text.
  return rows.reduce((newest, row) => {
    const time = rowTime(row);
    return time > newest ? time : newest;
  }, since);
}

/**
 * The state.json an existing seed-format ledger.jsonl folds to (for teams moving from the Python
 * loop).
 */
export function stateFromLedger(text: string, file: string, settings: FoldSettings, stateDir: string): StateJson {
  const { rows } = parseLedger(text, file);
  return stateJson(foldRows(rows, settings), stateDir, updatedTime(rows));
}
