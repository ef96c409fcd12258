// What is measured while the generation still runs, holding every eval (or, out of budget, still
// busy): the client's `status` round trip (section 5), then a fresh orchestrator process taking
// the running generation over (section 4).
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { loopStatus } from '../../../src/client/loop-look.js';
import { PROJECT_ROOT } from '../../../src/devserver/project-root.js';
import { loopWorkflowId } from '../../../src/workflows/ids.js';
import { stateQuery } from '../../../src/workflows/messages.js';
import type { BenchSession } from '../../lib/bench-session.js';
import type { BenchContext } from '../../lib/context.js';
import { summarize, type Summary } from '../../lib/stats.js';
import type { RunningWorkers } from '../../lib/workers.js';
import { LOOP_ID } from './loop-id.js';

/** The fresh orchestrator's first state query, and the events of the run it replayed to answer. */
interface Takeover {
  readonly workers: RunningWorkers;
  readonly firstQueryMs: number;
  readonly currentRunEvents: number;
}

export interface IdleMeasures {
  readonly status: Summary | null;
  /** null: no orchestrator in this process to hand over from. */
  readonly takeover: Takeover | null;
}

export async function measureWhileIdle(
  ctx: BenchContext,
  session: BenchSession,
  orchestrator: Worker | null,
): Promise<IdleMeasures> {
  const status = await timeStatusRoundTrips(session.client, ctx.options.statusCalls);
  return { status, takeover: orchestrator ? await takeOver(ctx, session, orchestrator) : null };
}

/** Section 5: the client's `status` (describe + state query) on the loop holding every eval; one call first, untimed. */
async function timeStatusRoundTrips(client: Client, calls: number): Promise<Summary> {
  await loopStatus(client, LOOP_ID);
  const times: number[] = [];
  for (let i = 0; i < calls; i += 1) {
    const start = performance.now();
    await loopStatus(client, LOOP_ID);
    times.push(performance.now() - start);
  }
  return summarize(times);
}

/** A fresh orchestrator process takes the running generation over: the first query replays its current run. */
async function takeOver(ctx: BenchContext, session: BenchSession, orchestrator: Worker): Promise<Takeover> {
  const { client, server } = session;
  orchestrator.shutdown();
  const bundleFile = path.join(server.dir, 'takeover-bundle.js');
  await writeFile(bundleFile, ctx.bundle.code);
  const workers = await session.children([{ name: 'orchestrator', args: [] }], () => [
    process.execPath,
    '--import',
    'tsx',
    path.join(PROJECT_ROOT, 'bench', 'orchestrator-child.ts'),
    server.address,
    server.namespace,
    bundleFile,
  ]);
  const handle = client.workflow.getHandle(loopWorkflowId(LOOP_ID));
  const start = performance.now();
  await handle.query(stateQuery);
  const firstQueryMs = performance.now() - start;
  const currentRunEvents = (await handle.describe()).historyLength;
  return { workers, firstQueryMs, currentRunEvents };
}
