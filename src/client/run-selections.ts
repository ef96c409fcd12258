import path from 'node:path';
import { selectedCheckpoint } from '../activities/support/run-dir.js';
import type { LoopConfig } from '../config/loop-config.js';
import type { LedgerRow } from '../ledger/rows.js';
import { trainedRunsOfLastGeneration, type SelectedCheckpoint } from './carry-from-ledger.js';

/**
 * The selected checkpoint of each trained run of the ledger's last generation, read from its run
 * directory under `runs_root` (the files training left): what a loop resumed from its ledger alone
 * needs to rebuild its round-ensemble pool. A run whose directory is gone or has no usable
 * selection is left out.
 */
export async function runSelections(
  rows: readonly LedgerRow[],
  config: Pick<LoopConfig, 'runs_root'>,
): Promise<Map<string, SelectedCheckpoint>> {
  const selections = new Map<string, SelectedCheckpoint>();
  for (const run of trainedRunsOfLastGeneration(rows)) {
    const selected = await selectedCheckpoint(path.join(config.runs_root, run.run_id));
    if (selected) selections.set(run.run_id, selected);
  }
  return selections;
}
