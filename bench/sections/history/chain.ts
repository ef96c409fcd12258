// Section 3: the generation's history, every run of the chain (continue-as-new included) counted.
import type { Client } from '@temporalio/client';
import { runHistories } from '../../../src/ledger-copy/history-runs.js';
import { loopWorkflowId } from '../../../src/workflows/ids.js';
import type { BenchSession } from '../../lib/bench-session.js';
import { eventTypeCounts, inputBytes, type HistoryEvent } from '../../lib/history.js';
import { LOOP_ID } from './loop-id.js';

export interface ChainCounts {
  /** Each run's events, in the chain's order. */
  readonly chain: HistoryEvent[][];
  readonly totals: number[];
  readonly total: number;
  /** Each listed run's history size (bytes), as the server describes it. */
  readonly sizes: number[];
  readonly largestIndex: number;
  /** The largest run input: the continue-as-new carry. */
  readonly carry: number;
  /** Events per training run, by type (3 decimals), most frequent first. */
  readonly perType: Record<string, number>;
  /** Events per training run, every type. */
  readonly perRun: number;
  /** Lines of the server log that warn about history or payload size. */
  readonly warnings: string[];
}

export async function countChain({ client, server }: BenchSession, runsDone: number): Promise<ChainCounts> {
  const chain = await runHistories(client, loopWorkflowId(LOOP_ID));
  const totals = chain.map((events) => events.length);
  const total = totals.reduce((sum, count) => sum + count, 0);
  const sizes = await historySizes(client);
  const perType = Object.fromEntries(
    [...eventTypeCounts(chain)].map(([type, count]) => [type, Number((count / Math.max(1, runsDone)).toFixed(3))]),
  );
  return {
    chain,
    totals,
    total,
    sizes,
    largestIndex: totals.indexOf(Math.max(...totals)),
    carry: Math.max(...chain.map(inputBytes)),
    perType,
    perRun: total / Math.max(1, runsDone),
    warnings: await server.historyWarnings(),
  };
}

/** The history size of every run the server lists for the generation's workflow id. */
async function historySizes(client: Client): Promise<number[]> {
  const listed: { runId: string }[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${loopWorkflowId(LOOP_ID)}'` }))
    listed.push({ runId: execution.runId });
  const sizes: number[] = [];
  for (const { runId } of listed) {
    const description = await client.workflow.getHandle(loopWorkflowId(LOOP_ID), runId).describe();
    sizes.push(Number(description.raw.workflowExecutionInfo?.historySizeBytes ?? 0));
  }
  return sizes;
}
