import type { Client } from '@temporalio/client';
import { foldGenerationHistory, foldPackagingHistory } from '../ledger/history-fold.js';
import { stateJson, type StateJson } from '../ledger/loop-state.js';
import type { LedgerRow } from '../ledger/rows.js';
import { generationHistories, packagingHistories } from './history.js';

/** A row's time, for merging the generation's and packaging's rows into one ledger. */
function rowTime(row: LedgerRow): string {
  switch (row.type) {
    case 'generation':
      return row.started;
    case 'package':
      return row.time;
    default:
      return row.finished;
  }
}

/** The seed's ledger.jsonl rows and state.json of a loop, rebuilt from Temporal history alone. */
export async function exportLedger(client: Client, loopId: string): Promise<{ rows: LedgerRow[]; state: StateJson }> {
  const generations = await generationHistories(client, loopId);
  const folded = foldGenerationHistory(generations);
  const packageRows = foldPackagingHistory(await packagingHistories(client, loopId));
  const rows: LedgerRow[] = [];
  let next = 0;
  for (const row of folded.rows) {
    // Package rows go in before the first generation row that happened after them (both lists are in order).
    while (next < packageRows.length && rowTime(packageRows[next] as LedgerRow) < rowTime(row)) rows.push(packageRows[next++] as LedgerRow);
    rows.push(row);
  }
  rows.push(...packageRows.slice(next));
  const last = generations[generations.length - 1];
  const stateDir = last?.input.config.state_dir ?? '';
  const updated = rows.length > 0 ? rowTime(rows[rows.length - 1] as LedgerRow) : '';
  return { rows, state: stateJson(folded.state, stateDir, updated) };
}
