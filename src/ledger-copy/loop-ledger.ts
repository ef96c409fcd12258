// A loop's whole ledger: history while it exists, the state dir's copy for what history lost.
import { foldRows, updatedTime } from '../ledger/from-ledger.js';
import { mergeByTime, missingGenerations, missingRows } from '../ledger/ledger-lines.js';
import { foldSettingsOf, stateJson, type StateJson } from '../ledger/loop-state.js';
import type { LedgerRow } from '../ledger/rows.js';
import type { LoopConfig } from '../config/loop-config.js';
import { readLedgerCopy } from './copy-files.js';
import type { HistoryLedger } from './history-runs.js';

export interface LoopLedger {
  readonly rows: LedgerRow[];
  readonly state: StateJson;
  readonly stateDir: string;
  /** The loop.yaml of its newest run in history (or the one given); null when neither. */
  readonly config: LoopConfig | null;
  /** Rows only the copy holds (history of their runs is gone). */
  readonly fromCopyOnly: number;
  /** Generations no row opens, in history or the copy: their record is lost. */
  readonly lostGenerations: number[];
}

/** What history holds, merged by time into one list of rows. */
export function historyRows(history: HistoryLedger): LedgerRow[] {
  return mergeByTime(history.generationRows, history.packageRows);
}

/**
 * The ledger of history and the copy together: the copy's rows, then every row of history the
 * copy lacks. The state is history's while a run of the loop is in it, else the rows' fold.
 */
export async function loopLedger(
  history: HistoryLedger,
  fallback: { stateDir: string; config?: LoopConfig } | null,
): Promise<LoopLedger> {
  const stateDir = history.stateDir ?? fallback?.stateDir;
  if (stateDir === undefined) throw new Error('neither history nor a state dir to read the ledger copy from');
  const copy = await readLedgerCopy(stateDir, { repair: false });
  const fromHistory = historyRows(history);
  const rows = [...copy, ...missingRows(copy, fromHistory)];
  const config = history.input?.config ?? fallback?.config;
  const state =
    history.state ??
    foldRows(
      rows,
      config
        ? foldSettingsOf(config)
        : { mode: 'default', saturationEvals: Number.MAX_SAFE_INTEGER, maxReserveChecks: 0 },
    );
  return {
    rows,
    state: stateJson(state, stateDir, updatedTime(rows)),
    stateDir,
    config: config ?? null,
    fromCopyOnly: missingRows(fromHistory, copy).length,
    lostGenerations: missingGenerations(rows),
  };
}
