// Keeps every running loop's ledger copy current: every few seconds it folds what history holds
// of the loop and appends the rows the copy lacks. It reads history and writes files only, so it
// adds no event to any workflow's history.
import type { Client } from '@temporalio/client';
import { updatedTime } from '../ledger/from-ledger.js';
import { stateJson, type LoopState } from '../ledger/loop-state.js';
import type { LoopConfig } from '../config/loop-config.js';
import type { LedgerRow } from '../ledger/rows.js';
import { LOOP_ID, LOOP_KIND, type LoopKind } from '../workflows/search-attributes.js';
import {
  appendLedgerRows,
  copyFileId,
  ledgerCopyPath,
  readLedgerCopy,
  writeStateCopy,
  type CopyFileId,
} from './copy-files.js';
import { holdCopyLock, releaseCopyLock } from './copy-lock.js';
import { HistoryRuns } from './history-runs.js';
import { CopyIndex } from './copy-index.js';

const LEDGER_COPY_INTERVAL_MS = 2_000;

interface Copy {
  readonly index: CopyIndex;
  /** Rows ledger.jsonl holds. */
  rows: number;
  /** The file as this keeper left it: another inode or size means someone changed it since. */
  file: CopyFileId | null;
  /** The newest time a row of the copy records: state.json's `updated`. */
  updated: string;
  stateText: string;
}

/** What one pass over a loop brought to its copy: handed to `onSynced` after the copy holds it. */
export interface LoopSynced {
  readonly loopId: string;
  readonly stateDir: string;
  /** The loop's configuration, as its running generation has it. */
  readonly config: LoopConfig;
  /** The rows this pass appended (often none), in ledger order: the copy's last `appended.length` rows. */
  readonly appended: readonly LedgerRow[];
  /**
   * Rows ledger.jsonl held once this pass had appended: `appended` are rows `copyRows -
   * appended.length` to `copyRows - 1`. What reacts to rows places them by this, never by counting
   * passes, since later passes may have appended more before a hook reads the file.
   */
  readonly copyRows: number;
  /** The state the whole ledger folds to. */
  readonly state: LoopState;
}

export interface LedgerKeeperOptions {
  readonly client: Client;
  readonly intervalMs?: number;
  readonly log?: (message: string) => void;
  /**
   * Called after every pass over a loop, once its copy holds the rows (what reacts to the
   * ledger: notifications, metrics). Its failure is logged and never stops the copy.
   */
  readonly onSynced?: (synced: LoopSynced) => Promise<void> | void;
}

export class LedgerKeeper {
  private readonly runs: HistoryRuns;
  private readonly copies = new Map<string, Copy>();
  /** Loops seen running: synced once more after they stop, for their last rows. */
  private readonly watched = new Set<string>();
  private readonly warned = new Set<string>();

  constructor(private readonly options: LedgerKeeperOptions) {
    this.runs = new HistoryRuns(options.client);
  }

  /** One pass over every loop with a running generation or packaging workflow. */
  async syncAll(): Promise<void> {
    const running = new Set<string>();
    const kinds: LoopKind[] = ['generation', 'packaging'];
    const query = `${LOOP_KIND.name} IN (${kinds.map((kind) => `'${kind}'`).join(', ')}) AND ExecutionStatus = 'Running'`;
    for await (const execution of this.options.client.workflow.list({ query })) {
      const loopId = execution.typedSearchAttributes.get(LOOP_ID);
      if (loopId !== undefined) running.add(loopId);
    }
    for (const loopId of new Set([...running, ...this.watched])) {
      try {
        await this.syncLoop(loopId);
        this.warned.delete(loopId);
      } catch (error) {
        if (!this.warned.has(loopId))
          this.options.log?.(`ledger copy of loop ${loopId} not updated: ${(error as Error).message}`);
        this.warned.add(loopId);
      }
      if (running.has(loopId)) this.watched.add(loopId);
      else this.watched.delete(loopId);
    }
  }

  /** Append what history holds of one loop and its copy lacks; rewrite state.json when it changed. */
  async syncLoop(loopId: string): Promise<number> {
    const history = await this.runs.read(loopId);
    if (history.input === null || history.state === null) return 0;
    const stateDir = history.input.config.state_dir;
    if (!(await holdCopyLock(stateDir))) return 0;
    let copy = this.copies.get(stateDir);
    const file = await copyFileId(stateDir);
    if (copy && !sameFile(copy.file, file)) {
      // Cut short, replaced or deleted under the keeper (an operator, a restore, `rm -rf`): what the
      // copy holds is read again, and what it lacks of history is appended below, in history's order.
      this.options.log?.(
        `ledger copy of loop ${loopId}: ${ledgerCopyPath(stateDir)} ${changeWords(copy.file, file)} since this worker wrote it ` +
          `(${copy.rows} rows then): read again, and the rows it lacks appended from history`,
      );
      this.copies.delete(stateDir);
      copy = undefined;
    }
    if (!copy) {
      const rows = await readLedgerCopy(stateDir, { repair: true });
      copy = { index: new CopyIndex(rows), rows: rows.length, file: null, updated: updatedTime(rows), stateText: '' };
      this.copies.set(stateDir, copy);
    }
    const missing = copy.index.missing(history.segments);
    try {
      await appendLedgerRows(stateDir, missing);
    } catch (error) {
      // What the copy holds is unknown now: read it again next pass.
      this.copies.delete(stateDir);
      throw error;
    }
    copy.index.appended(missing);
    copy.rows += missing.length;
    copy.file = await copyFileId(stateDir);
    copy.updated = updatedTime(missing, copy.updated);
    const state = stateJson(history.state, stateDir, copy.updated);
    const stateText = JSON.stringify(state);
    if (stateText !== copy.stateText) {
      await writeStateCopy(stateDir, state);
      copy.stateText = stateText;
    }
    try {
      await this.options.onSynced?.({
        loopId,
        stateDir,
        config: history.input.config,
        appended: missing,
        copyRows: copy.rows,
        state: history.state,
      });
    } catch (error) {
      this.options.log?.(`after the ledger copy of loop ${loopId}: ${(error as Error).message}`);
    }
    return missing.length;
  }

  /** Forget what this keeper knows of a state dir's copy (someone moved it aside) and let go of its lock. */
  async release(stateDir: string): Promise<void> {
    this.copies.delete(stateDir);
    await releaseCopyLock(stateDir);
  }

  async releaseAll(): Promise<void> {
    for (const stateDir of [...this.copies.keys()]) await this.release(stateDir);
  }
}

/** A copy never written by this keeper (null) matches whatever is there: it is read in full anyway. */
function sameFile(was: CopyFileId | null, now: CopyFileId | null): boolean {
  return was === null || (now !== null && was.ino === now.ino && was.size === now.size);
}

function changeWords(was: CopyFileId | null, now: CopyFileId | null): string {
  if (now === null) return 'was deleted';
  if (was !== null && was.ino !== now.ino) return 'was replaced by another file';
  if (was !== null && now.size < was.size) return `was cut short (${was.size} bytes then, ${now.size} now)`;
  return `was written by someone else (${was?.size ?? 0} bytes then, ${now.size} now)`;
}

/** What the keeper needs of the worker it runs beside. */
interface WorkerState {
  getState(): string;
}

/**
 * Run a keeper beside a worker: a pass every `intervalMs` while the worker runs (and while it
 * drains). `flush` runs one more pass after the ones before it: call it once the worker has
 * stopped, while its connection is still open, so the copy holds the loop's last rows.
 */
export function keepLedgerCopies(options: LedgerKeeperOptions & { readonly worker: WorkerState }): {
  flush(): Promise<void>;
} {
  const keeper = new LedgerKeeper(options);
  // Passes never overlap: each waits for the one before it.
  let chain: Promise<void> = Promise.resolve();
  const pass = (): Promise<void> => {
    chain = chain
      .then(() => keeper.syncAll())
      .catch((error: unknown) => options.log?.(`ledger copy pass failed: ${(error as Error).message}`));
    return chain;
  };
  const tick = (): void => {
    const state = options.worker.getState();
    if (state === 'STOPPED' || state === 'FAILED') return;
    const work = state === 'INITIALIZED' ? Promise.resolve() : pass();
    void work.finally(() => setTimeout(tick, options.intervalMs ?? LEDGER_COPY_INTERVAL_MS).unref());
  };
  setTimeout(tick, 0).unref();
  return {
    async flush() {
      await pass();
      await keeper.releaseAll().catch(() => undefined);
    },
  };
}
