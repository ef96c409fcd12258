// Section 5 too: `status` once no orchestrator answers (the loop stopped, or none polls). It reads
// the newest runs only; beside it the whole ledger export reads every run and the copy.
import type { Client } from '@temporalio/client';
import { exportLedger, lastLoopState } from '../../../src/client/ledger-export.js';
import { medianTime, timed } from '../../lib/stats.js';
import { LOOP_ID } from './loop-id.js';

export interface StoppedStatus {
  /** lastLoopState, median of 3. */
  readonly stoppedMs: number;
  readonly wholeExportMs: number;
}

export async function measureStoppedStatus(client: Client, log: (line: string) => void): Promise<StoppedStatus> {
  const stopped = await medianTime(3, () => lastLoopState(client, LOOP_ID));
  const wholeExport = await timed(() => exportLedger(client, LOOP_ID));
  log(
    `history: status without an orchestrator ${stopped.ms.toFixed(0)} ms; the whole ledger export ${wholeExport.ms.toFixed(0)} ms (${wholeExport.value.rows.length} rows)`,
  );
  return { stoppedMs: stopped.ms, wholeExportMs: wholeExport.ms };
}
