import type { Client } from '@temporalio/client';
import { defaultPayloadConverter } from '@temporalio/common';
import type { CompareKey } from '../rules/types.js';
import type { GenerationInput } from '../workflows/generation.js';
import { loopWorkflowId } from '../workflows/ids.js';
import { exportLedger } from './ledger-export.js';
import { renderReport } from './report/render-report.js';

/** Whether the loop compares on decided counts: its latest run's loop.yaml says (band_decisions). */
async function compareKeyOf(client: Client, loopId: string): Promise<CompareKey> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: loopWorkflowId(loopId) },
    maximumPageSize: 1,
  });
  const payload = history?.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const input = payload ? defaultPayloadConverter.fromPayload<GenerationInput>(payload) : undefined;
  return input?.config.band_decisions ? 'decided' : 'result';
}

/** The HTML report of a loop, from its exported ledger, and what it holds. */
export async function loopReport(client: Client, loopId: string, now: Date): Promise<{ html: string; generations: number; testEvals: number }> {
  const { rows, state } = await exportLedger(client, loopId);
  const compare = await compareKeyOf(client, loopId);
  return {
    html: renderReport(rows, { loopId, generatedAt: now, compare, state }),
    generations: new Set(rows.filter((row) => row.type === 'generation').map((row) => row.generation)).size,
    testEvals: rows.filter((row) => row.type === 'eval' && row.role === 'test' && row.status === 'ok').length,
  };
}
