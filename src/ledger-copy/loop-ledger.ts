// A loop's whole ledger: history while it exists, the state dir's copy for what history lost, in
// the one order the copy itself has once the keeper has repaired and extended it (copy-check.ts).
import { foldRows, updatedTime } from '../ledger/from-ledger.js';
import { ledgerFileLines, mergeByTime, missingGenerations } from '../ledger/ledger-lines.js';
import { foldSettingsOf, stateJson, type StateJson } from '../ledger/loop-state.js';
import type { LedgerRow } from '../ledger/rows.js';
import type { LoopConfig } from '../config/loop-config.js';
import { checkCopy, copyProblemWords } from './copy-check.js';
import { ledgerCopyPath, readCopyText } from './copy-files.js';
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
  /** What is wrong with the copy, which history's rows make up for (the keeper repairs the file); null when nothing. */
  readonly copyProblems: string | null;
  /** With no history to repair from, the copy's first line that is no row (read up to it on request); null when none. */
  readonly damagedAt: { readonly line: number; readonly reason: string } | null;
}

/** A copy with a line that is no row and no history left to repair it from. */
class DamagedCopyError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    reason: string,
  ) {
    super(
      `${file}:${line}: not a ledger row (${reason}), and no history of the loop is left to repair the copy from: ` +
        `mend or delete line ${line} by hand, or read the rows before it with --up-to-damage`,
    );
    this.name = 'DamagedCopyError';
  }
}

/** What history holds, merged by time into one list of rows. */
export function historyRows(history: HistoryLedger): LedgerRow[] {
  return mergeByTime(history.generationRows, history.packageRows);
}

/**
 * The ledger of history and the copy together, in the order the copy has once the keeper has
 * repaired it and appended what it lacks. The state is history's while a run of the loop is in
 * it, else the rows' fold. With no generation run left in history, a line of the copy that is no
 * row is refused (DamagedCopyError), or with `upToDamage` the rows before it are read.
 */
export async function loopLedger(
  history: HistoryLedger,
  fallback: { stateDir: string; config?: LoopConfig } | null,
  { upToDamage = false }: { upToDamage?: boolean } = {},
): Promise<LoopLedger> {
  const stateDir = history.stateDir ?? fallback?.stateDir;
  if (stateDir === undefined) throw new Error('neither history nor a state dir to read the ledger copy from');
  let lines = ledgerFileLines(await readCopyText(stateDir));
  let damagedAt: LoopLedger['damagedAt'] = null;
  if (history.input === null) {
    // The copy is the record: nothing can stand in for a damaged line (a torn last one is a crash's, left out).
    const bad = lines.find((line) => line.row === null && !line.last);
    if (bad !== undefined) {
      if (!upToDamage) throw new DamagedCopyError(ledgerCopyPath(stateDir), bad.line, bad.reason ?? '');
      damagedAt = { line: bad.line, reason: bad.reason ?? '' };
      lines = lines.filter((line) => line.line < bad.line);
    }
  }
  const check = checkCopy(lines, history.checked);
  const rows = check.ledger;
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
    fromCopyOnly: check.copyOnly,
    lostGenerations: missingGenerations(rows),
    copyProblems: check.whole ? null : copyProblemWords(check),
    damagedAt,
  };
}
