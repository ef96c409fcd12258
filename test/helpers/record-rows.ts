import { initialLoopState, recordRow, type FoldSettings, type LoopState } from '../../src/ledger/loop-state.js';
import type { LedgerRow } from '../../src/ledger/rows.js';

/** Generation 1 opened, nothing recorded yet. */
const openedGeneration: LoopState = { ...initialLoopState(), generation: 1 };

/** Records the rows in turn from `from` (generation 1 opened): the state they fold to and every row written. */
export function recordAll(
  rows: readonly LedgerRow[],
  settings: FoldSettings,
  from: LoopState = openedGeneration,
): { state: LoopState; out: LedgerRow[] } {
  let state = from;
  const out: LedgerRow[] = [];
  for (const row of rows) {
    const recorded = recordRow(state, row, settings);
    state = recorded.state;
    out.push(...recorded.rows);
  }
  return { state, out };
}
