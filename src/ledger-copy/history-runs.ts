// A loop's runs as history holds them now, folded run by run; closed runs are folded once and
// remembered, an open one again only when its history grew.
import type { Client } from '@temporalio/client';
import { openPayloads } from '../codec/decode-payloads.js';
import proto from '@temporalio/proto';
import { WorkflowNotFoundError } from '@temporalio/client';
import { generationRunOf, packagingRunOf, type HistoryEvent } from '../ledger/history/index.js';
import { updatedTime } from '../ledger/from-ledger.js';
import { foldGenerationRun, foldPackagingRun } from '../ledger/history/fold.js';
import type { LoopState } from '../ledger/loop-state.js';
import { idlePackaging, type PackagingState } from '../ledger/packaging-fold.js';
import type { LedgerRow, PackageRow } from '../ledger/rows.js';
import type { GenerationInput } from '../workflows/generation.js';
import type { CheckedHistory } from './copy-check.js';
import { loopWorkflowId, packagingWorkflowId } from '../workflows/ids.js';
import { abandonedBy, abandonedRuns, resetSpan, type ResetSpan } from './reset-timelines.js';

interface ListedRun {
  readonly runId: string;
  readonly start: number;
  readonly open: boolean;
}

interface FoldedGenerationRun {
  readonly input: GenerationInput;
  /** The run a reset of this one replaced: its history up to the reset point is this run's too. */
  readonly resetFrom: string | null;
  readonly rows: LedgerRow[];
  readonly state: LoopState;
  readonly historyLength: number;
}

interface FoldedPackagingRun {
  readonly events: readonly HistoryEvent[];
  readonly historyLength: number;
}

/** What history holds of a loop now. */
export interface HistoryLedger {
  /** Generation-workflow rows and package rows, each in history order. */
  readonly generationRows: LedgerRow[];
  readonly packageRows: PackageRow[];
  /** The state the newest generation run folds to; null when no run of the loop is in history. */
  readonly state: LoopState | null;
  /** The newest run's input (its loop.yaml); null when no run is in history. */
  readonly input: GenerationInput | null;
  /**
   * The loop's state dir (where its ledger copy is): its newest generation run's, or, when every
   * generation run is gone, its packaging workflow's (an entity that often outlives them).
   */
  readonly stateDir: string | null;
  /** Whether a run of the generation workflow is open. */
  readonly running: boolean;
  /**
   * The same rows by where they come from (each generation run, then packaging), each list only
   * ever growing at its end while its run is open: what the keeper syncs a piece at a time.
   */
  readonly segments: readonly { readonly key: string; readonly rows: readonly LedgerRow[] }[];
  /** The same rows as a ledger copy is checked against (copy-check.ts), with what resets abandoned. */
  readonly checked: CheckedHistory;
}

/** The newest generation run's state and input, and the time of the loop's last row ('' when none). */
export interface LatestRun {
  readonly state: LoopState;
  readonly input: GenerationInput;
  readonly updated: string;
}

/** The base run of a reset whose result this run is, from the reset's workflow task failure. */
function resetBaseRun(events: readonly HistoryEvent[]): string | null {
  const RESET = proto.temporal.api.enums.v1.WorkflowTaskFailedCause.WORKFLOW_TASK_FAILED_CAUSE_RESET_WORKFLOW;
  for (const event of events) {
    const failed = event.workflowTaskFailedEventAttributes;
    if (failed?.cause === RESET && failed.baseRunId) return failed.baseRunId;
  }
  return null;
}

interface ListedGenerationRun {
  readonly run: ListedRun;
  readonly folded: FoldedGenerationRun;
}

/** Every run of a workflow id, oldest first: all runs of every execution (continue-as-new chains and later restarts alike). */
async function listRuns(client: Client, workflowId: string): Promise<ListedRun[]> {
  const runs: ListedRun[] = [];
  for await (const execution of client.workflow.list({ query: `WorkflowId = '${workflowId.replace(/'/g, "\\'")}'` })) {
    runs.push({
      runId: execution.runId,
      start: execution.startTime.getTime(),
      open: execution.status.name === 'RUNNING',
    });
  }
  // Visibility can lag behind a fresh start or a continue-as-new: the latest run is asked directly.
  try {
    const latest = await client.workflow.getHandle(workflowId).describe();
    const listed = runs.findIndex((run) => run.runId === latest.runId);
    const run = { runId: latest.runId, start: latest.startTime.getTime(), open: latest.status.name === 'RUNNING' };
    if (listed < 0) runs.push(run);
    else runs[listed] = run;
  } catch (error) {
    if (!(error instanceof WorkflowNotFoundError)) throw error;
  }
  return runs.sort((a, b) => a.start - b.start);
}

/** Every run of a workflow id, oldest first, as its full history ([] when there is none). */
export async function runHistories(client: Client, workflowId: string): Promise<HistoryEvent[][]> {
  return Promise.all(
    (await listRuns(client, workflowId)).map(async ({ runId }) =>
      openPayloads(client, (await client.workflow.getHandle(workflowId, runId).fetchHistory()).events ?? []),
    ),
  );
}

/** Folds a loop's runs from history, remembering what cannot change any more. */
export class HistoryRuns {
  private readonly generation = new Map<string, FoldedGenerationRun>();
  private readonly packaging = new Map<string, FoldedPackagingRun>();
  private readonly closed = new Set<string>();

  constructor(private readonly client: Client) {}

  async read(loopId: string): Promise<HistoryLedger> {
    const folded: ListedGenerationRun[] = [];
    for (const run of await listRuns(this.client, loopWorkflowId(loopId))) {
      const one = await this.generationRun(loopWorkflowId(loopId), run);
      if (one !== null) folded.push({ run, folded: one });
    }
    // A reset abandons its base run (whose rows up to the reset point the new run holds again) and
    // the runs after it (reset-timelines.ts); a run without a carry is a fresh start (`start
    // --fresh`): what came before it is another loop.
    const replaced = abandonedRuns(folded.map(({ run, folded }) => ({ ...run, resetFrom: folded.resetFrom })));
    const current = folded.filter((entry) => !replaced.has(entry.run.runId));
    const fresh = current.map((entry) => entry.folded.input.carry === undefined).lastIndexOf(true);
    const generationRows: LedgerRow[] = [];
    const segments: { key: string; rows: readonly LedgerRow[] }[] = [];
    let last: FoldedGenerationRun | null = null;
    let running = false;
    for (const entry of current.slice(Math.max(0, fresh))) {
      generationRows.push(...entry.folded.rows);
      segments.push({ key: entry.run.runId, rows: entry.folded.rows });
      last = entry.folded;
      running ||= entry.run.open;
    }
    let packagingState: PackagingState = idlePackaging;
    const packageRows: PackageRow[] = [];
    let packagingStateDir: string | null = null;
    for (const run of await listRuns(this.client, packagingWorkflowId(loopId))) {
      const events = await this.packagingRun(packagingWorkflowId(loopId), run);
      if (events === null) continue;
      const packagingRun = packagingRunOf(events);
      packagingStateDir = packagingRun.input.paths.stateDir;
      const folded = foldPackagingRun(packagingRun, packagingState);
      packagingState = folded.state;
      packageRows.push(...folded.rows);
    }
    // Package rows of the loop that a fresh start replaced are not this loop's.
    const since = fresh > 0 ? (current[fresh]?.run.start ?? 0) : 0;
    const ownPackageRows = packageRows.filter((row) => Date.parse(row.time) >= since);
    segments.push({ key: 'packaging', rows: ownPackageRows });
    const abandoned = folded.filter((entry) => replaced.has(entry.run.runId)).flatMap((entry) => entry.folded.rows);
    return {
      checked: {
        generation: { rows: generationRows, abandoned },
        packaging: { rows: ownPackageRows, abandoned: [] },
      },
      generationRows,
      packageRows: ownPackageRows,
      state: last?.state ?? null,
      input: last?.input ?? null,
      stateDir: last?.input.config.state_dir ?? packagingStateDir,
      running,
      segments,
    };
  }

  /**
   * What `status` needs of a loop that is not running, reading only its newest runs (a cost that
   * does not grow with the loop): the newest generation run's state and input, and the time of the
   * loop's last row, as `read` gives them. Null when no generation run of the loop is in history.
   */
  async readLatest(loopId: string): Promise<LatestRun | null> {
    let newest: FoldedGenerationRun | null = null;
    let updated = '';
    // The start of the loop's fresh run, when the walk reached it: package rows before it are another loop's.
    let since = 0;
    // What the resets met so far abandoned (newest first, a reset run comes before its span).
    const spans: ResetSpan[] = [];
    const listed = await listRuns(this.client, loopWorkflowId(loopId));
    for (const run of [...listed].reverse()) {
      if (abandonedBy(spans, run)) continue;
      const folded = await this.generationRun(loopWorkflowId(loopId), run);
      if (folded === null) continue;
      const span = resetSpan({ ...run, resetFrom: folded.resetFrom }, listed);
      if (span !== null) spans.push(span);
      newest ??= folded;
      if (folded.input.carry === undefined) since = run.start;
      if (folded.rows.length > 0) updated = updatedTime(folded.rows);
      if (updated !== '' || since > 0) break;
    }
    if (newest === null) return null;
    for (const run of (await listRuns(this.client, packagingWorkflowId(loopId))).reverse()) {
      const events = await this.packagingRun(packagingWorkflowId(loopId), run);
      if (events === null) continue;
      // A packaging run carries its state: folded alone it gives the rows a whole read gives it.
      const rows = foldPackagingRun(packagingRunOf(events), idlePackaging).rows.filter(
        (row) => Date.parse(row.time) >= since,
      );
      const last = updatedTime(rows);
      if (last === '') continue;
      // ISO times of one format order as text ('' before any).
      if (last > updated) updated = last;
      break;
    }
    return { state: newest.state, input: newest.input, updated };
  }

  private async generationRun(workflowId: string, run: ListedRun): Promise<FoldedGenerationRun | null> {
    const key = `${workflowId}/${run.runId}`;
    const known = this.generation.get(key);
    if (known && this.closed.has(key)) return known;
    const events = await this.events(workflowId, run, known?.historyLength ?? -1);
    if (events === null) return known ?? null;
    if (events === 'deleted') return null;
    const history = generationRunOf(events);
    const folded = {
      input: history.input,
      resetFrom: resetBaseRun(events),
      ...foldGenerationRun(history),
      historyLength: events.length,
    };
    this.generation.set(key, folded);
    if (!run.open) this.closed.add(key);
    return folded;
  }

  private async packagingRun(workflowId: string, run: ListedRun): Promise<readonly HistoryEvent[] | null> {
    const key = `${workflowId}/${run.runId}`;
    const known = this.packaging.get(key);
    if (known && this.closed.has(key)) return known.events;
    const events = await this.events(workflowId, run, known?.historyLength ?? -1);
    if (events === null) return known?.events ?? null;
    if (events === 'deleted') return null;
    this.packaging.set(key, { events, historyLength: events.length });
    if (!run.open) this.closed.add(key);
    return events;
  }

  /** A run's events; null when an open run's history has not grown; 'deleted' when it is gone. */
  private async events(
    workflowId: string,
    run: ListedRun,
    knownLength: number,
  ): Promise<HistoryEvent[] | null | 'deleted'> {
    const handle = this.client.workflow.getHandle(workflowId, run.runId);
    try {
      if (run.open && knownLength >= 0) {
        const { historyLength } = await handle.describe();
        if (historyLength === knownLength) return null;
      }
      return await openPayloads(this.client, (await handle.fetchHistory()).events ?? []);
    } catch (error) {
      if (error instanceof WorkflowNotFoundError || (error as { code?: number }).code === 5) return 'deleted';
      throw error;
    }
  }
}
