import type { Client } from '@temporalio/client';
import type { LoopConfig } from '../config/loop-config.js';
import { updatedTime } from '../ledger/from-ledger.js';
import { decidedCounts, foldSettingsOf, stateJson, type DecidedCounts, type StateJson } from '../ledger/loop-state.js';
import type { LedgerRow } from '../ledger/rows.js';
import { HistoryRuns } from '../ledger-copy/history-runs.js';
import { historyRows, loopLedger, type LoopLedger } from '../ledger-copy/loop-ledger.js';
import { NoSuchLoopError } from './no-such-loop.js';
import { loopWorkflowId } from '../workflows/ids.js';

/**
 * A loop's ledger.jsonl rows and state.json in the seed's formats: history and the copy in the
 * loop's state dir together (history wins while it exists). `stateDir` (or a loop.yaml) finds the
 * copy of a loop whose history is gone altogether.
 */
export async function exportLedger(
  client: Client,
  loopId: string,
  fallback?: { stateDir: string; config?: LoopConfig },
  options: { upToDamage?: boolean } = {},
): Promise<LoopLedger> {
  const history = await new HistoryRuns(client).read(loopId);
  if (history.stateDir === null && !fallback) throw new NoSuchLoopError(loopId, loopWorkflowId(loopId));
  return loopLedger(history, fallback ?? null, options);
}

/**
 * A loop's last state for `status`: what its newest run in history folds to (from the state that
 * run carried in), so the ledger copy, which grows with the loop, is not read; the whole ledger
 * (history and the copy) only when no run is left in history. `note` says what the ledger lacks.
 */
export async function lastLoopState(
  client: Client,
  loopId: string,
): Promise<{ state: StateJson & { decided?: DecidedCounts }; note: string | null; stateDir: string }> {
  const runs = new HistoryRuns(client);
  // The newest runs only: a stopped loop's status costs the same at 500 evaluations as at 50,000.
  const latest = await runs.readLatest(loopId);
  if (latest !== null) {
    const stateDir = latest.input.config.state_dir;
    const decided = decidedCounts(latest.state, foldSettingsOf(latest.input.config));
    const state = stateJson(latest.state, stateDir, latest.updated);
    return { state: decided ? { ...state, decided } : state, note: null, stateDir };
  }
  const history = await runs.read(loopId);
  if (history.stateDir === null) throw new NoSuchLoopError(loopId, loopWorkflowId(loopId));
  // status reads a damaged copy up to the damage, and says so.
  const ledger = await loopLedger(history, null, { upToDamage: true });
  return { state: ledger.state, note: ledgerSources(ledger), stateDir: ledger.stateDir };
}

/** The rows and state Temporal history alone holds of a loop (what the copy is checked against). */
export async function historyLedger(client: Client, loopId: string): Promise<{ rows: LedgerRow[]; state: StateJson }> {
  const history = await new HistoryRuns(client).read(loopId);
  if (history.input === null || history.state === null) throw new NoSuchLoopError(loopId, loopWorkflowId(loopId));
  const rows = historyRows(history);
  return { rows, state: stateJson(history.state, history.input.config.state_dir, updatedTime(rows)) };
}

/** One line saying what of the ledger history no longer holds, or null when history holds it all. */
export function ledgerSources(ledger: LoopLedger): string | null {
  const parts: string[] = [];
  if (ledger.fromCopyOnly > 0)
    parts.push(`${ledger.fromCopyOnly} rows come from the copy in ${ledger.stateDir} (their history is gone)`);
  if (ledger.copyProblems !== null)
    parts.push(
      `the copy in ${ledger.stateDir} differs from history (${ledger.copyProblems}): this is history's ledger; ` +
        "the orchestrator's ledger keeper repairs the copy on its next pass",
    );
  if (ledger.damagedAt !== null)
    parts.push(
      `read up to line ${ledger.damagedAt.line} of the copy in ${ledger.stateDir}, which is not a ledger row ` +
        `(${ledger.damagedAt.reason}) and which no history is left to repair: the rows after it are not here`,
    );
  if (ledger.lostGenerations.length > 0) {
    parts.push(`generation ${ledger.lostGenerations.join(', ')} is in neither history nor the copy: its rows are lost`);
  }
  return parts.length > 0 ? parts.join('; ') : null;
}
