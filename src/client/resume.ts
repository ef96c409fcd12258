// Where `champion-loop start` goes on from, whatever the loop's last run ended in: the result of a
// completed run, the carry of a terminated, cancelled, failed or timed-out one (asked of its
// history), or, when history holds nothing of the loop, the ledger copy in its state dir.
import { WorkflowNotFoundError, type Client } from '@temporalio/client';
import { restoreLedgerCopy } from '../artifacts/ledger-mirror.js';
import type { LoopConfig } from '../config/loop-config.js';
import { readLedgerCopy } from '../ledger-copy/copy-files.js';
import { LedgerLineError } from '../ledger/ledger-lines.js';
import type { LedgerRow } from '../ledger/rows.js';
import type { GenerationCarry, GenerationResult } from '../workflows/generation/carry.js';
import { nextAttempt, type InFlight } from '../workflows/generation/jobs.js';
import { loopWorkflowId } from '../workflows/ids.js';
import { carryQuery, reserveReportedSignal, runReportedSignal, teacherReportedSignal } from '../workflows/messages.js';
import { runSelections } from './run-selections.js';
import { carryFromLedger } from './carry-from-ledger.js';
import { statusInWords } from './status-words.js';

export type Resumption =
  | { readonly kind: 'running' }
  | { readonly kind: 'fresh' }
  | { readonly kind: 'resume'; readonly carry: GenerationCarry; readonly from: string };

/** Where a loop goes on from. */
export async function resumptionOf(client: Client, loopId: string, config: LoopConfig): Promise<Resumption> {
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
    return fromLedgerCopy(config, loopId);
  }
  if (status === 'RUNNING') return { kind: 'running' };
  if (status === 'COMPLETED')
    return {
      kind: 'resume',
      carry: ((await handle.result()) as GenerationResult).resume,
      from: 'its last run, which stopped',
    };
  // Terminated, cancelled, failed or timed out: the run's history replayed tells what it would carry.
  const carry = await handle.query(carryQuery).catch(() => null);
  if (carry === null) {
    const fromCopy = await fromLedgerCopy(config, loopId);
    if (fromCopy.kind === 'resume')
      return {
        ...fromCopy,
        from: `${fromCopy.from} (its last run was ${statusInWords(status)} and could not be asked for its state)`,
      };
    return fromCopy;
  }
  return {
    kind: 'resume',
    // As a stop and start: a split the run had given up on is tried again.
    carry: await settleInFlight(client, { ...carry, stopping: false, splitFailed: null }),
    from: `its last run, which was ${statusInWords(status)}`,
  };
}

async function fromLedgerCopy(config: LoopConfig, loopId: string): Promise<Resumption> {
  // A host that never ran the loop (its state dir empty) takes the copy the store mirrors (loop.yaml artifacts:).
  const restored = config.artifacts
    ? await restoreLedgerCopy(config.artifacts, loopId, config.state_dir).catch((error: unknown) => {
        throw new Error(
          `${error instanceof Error ? error.message : String(error)}: with no history of loop ${loopId} and no ledger copy in ${config.state_dir}, ` +
            "start looks in the artifact store for the loop's mirrored copy before it starts the loop afresh. Bring the store back " +
            '(or check loop.yaml artifacts: and the AWS credentials), then start again. Nothing started.',
          { cause: error },
        );
      })
    : null;
  let rows: LedgerRow[];
  try {
    rows = await readLedgerCopy(config.state_dir);
  } catch (error) {
    if (!(error instanceof LedgerLineError)) throw error;
    throw new Error(
      `${error.message}: no history of the loop is left to repair its ledger copy from, and a loop resumed from a ` +
        `damaged copy would go on from the wrong state. Mend or delete line ${error.line} of ${error.file} by hand ` +
        "('champion-loop ledger <loop> --config <loop.yaml> --up-to-damage' shows the rows before it). Nothing started.",
      { cause: error },
    );
  }
  const carry = carryFromLedger(rows, config, new Date().toISOString(), await runSelections(rows, config));
  return carry
    ? {
        kind: 'resume',
        carry,
        from: `the ledger copy in ${config.state_dir} (${rows.length} rows${restored ? `, fetched from ${restored.uri}` : ''}; no history of the loop is left)`,
      }
    : { kind: 'fresh' };
}

/**
 * The carried jobs whose child ended while no run of the loop was there to hear it: a child that
 * completed keeps its place (its report is delivered again once the loop runs); one that failed,
 * was terminated or never started goes back to the queue.
 */
async function settleInFlight(client: Client, carry: GenerationCarry): Promise<GenerationCarry> {
  const inFlight: InFlight[] = [];
  const requeued = [];
  for (const flight of carry.inFlight) {
    const status = await client.workflow
      .getHandle(flight.childId)
      .describe()
      .then(
        (description) => description.status.name,
        () => 'NOT_FOUND',
      );
    if (status === 'RUNNING' || status === 'COMPLETED') inFlight.push(flight);
    else requeued.push(nextAttempt(flight.job));
  }
  return { ...carry, inFlight, queue: [...requeued, ...carry.queue] };
}

/**
 * Hand the resumed run the reports of carried children that completed before it started (their
 * own signal found no run). Children that report by completion are left to the run, which adopts
 * them and reads the outcome of those already closed. A report delivered twice counts once: the loop and the ledger count a
 * child's report only while its job is in flight.
 */
export async function redeliverReports(client: Client, loopId: string, carry: GenerationCarry): Promise<number> {
  const loop = client.workflow.getHandle(loopWorkflowId(loopId));
  let delivered = 0;
  for (const flight of carry.inFlight) {
    if (flight.byCompletion) continue;
    const child = client.workflow.getHandle(flight.childId);
    if ((await child.describe().catch(() => null))?.status.name !== 'COMPLETED') continue;
    const report: unknown = await child.result();
    if (flight.job.kind === 'run') await loop.signal(runReportedSignal, report as never);
    else if (flight.job.kind === 'teacher') await loop.signal(teacherReportedSignal, report as never);
    else await loop.signal(reserveReportedSignal, report as never);
    delivered += 1;
  }
  return delivered;
}
