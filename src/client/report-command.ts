import type { Client } from '@temporalio/client';
import type { CompareKey } from '../rules/types.js';
import type { LoopConfig } from '../config/loop-config.js';
import { exportLedger, ledgerSources } from './ledger-export.js';
import { renderReport } from './report/render-report.js';

/** The HTML report of a loop, from its ledger (history and the copy together), and what it holds. */
export async function loopReport(
  client: Client,
  loopId: string,
  now: Date,
  fallback?: { stateDir: string; config?: LoopConfig },
  options: { upToDamage?: boolean } = {},
): Promise<{ html: string; generations: number; testEvals: number; note: string | null; stateDir: string | null }> {
  const ledger = await exportLedger(client, loopId, fallback, options);
  const { rows, state } = ledger;
  // Whether the loop compares on decided counts: its loop.yaml says (band_decisions).
  const compare: CompareKey = (ledger.config ?? fallback?.config)?.band_decisions ? 'decided' : 'result';
  return {
    html: renderReport(rows, { loopId, generatedAt: now, compare, state }),
    generations: new Set(rows.filter((row) => row.type === 'generation').map((row) => row.generation)).size,
    testEvals: rows.filter((row) => row.type === 'eval' && row.role === 'test' && row.status === 'ok').length,
    note: ledgerSources(ledger),
    stateDir: ledger.stateDir,
  };
}
