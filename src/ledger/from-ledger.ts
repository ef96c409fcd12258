import { applyRow, initialLoopState, stateJson, type FoldSettings, type StateJson } from './loop-state.js';
import type { LedgerRow } from './rows.js';

const FOLDED = new Set(['generation', 'eval', 'reserve_check']);

/** A line of a seed ledger that is not a JSON object: names the line. */
export class LedgerLineError extends Error {
  constructor(readonly file: string, readonly line: number, reason: string) {
    super(`${file}:${line}: not a ledger row (${reason})`);
    this.name = 'LedgerLineError';
  }
}

/**
 * The state.json an existing seed-format ledger.jsonl folds to (for teams moving from the Python
 * loop). Rows of types the state does not depend on are skipped.
 */
export function stateFromLedger(text: string, file: string, settings: FoldSettings, stateDir: string): StateJson {
  let state = initialLoopState();
  let updated = '';
  text.split('\n').forEach((line, index) => {
    if (line.trim() === '') return;
    let row: unknown;
    try {
      row = JSON.parse(line);
    } catch (error) {
      throw new LedgerLineError(file, index + 1, (error as Error).message);
    }
    if (typeof row !== 'object' || row === null || typeof (row as { type?: unknown }).type !== 'string') {
      throw new LedgerLineError(file, index + 1, 'no "type" field');
    }
    const typed = row as LedgerRow & { started?: string; finished?: string; time?: string };
    updated = typed.finished ?? typed.started ?? typed.time ?? updated;
    if (FOLDED.has(typed.type)) state = applyRow(state, typed, settings);
  });
  return stateJson(state, stateDir, updated);
}
