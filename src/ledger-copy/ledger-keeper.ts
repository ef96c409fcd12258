// Keeps every running loop's ledger copy current: every few seconds it folds what history holds
// of the loop and appends the rows the copy lacks. It reads history and writes files only, so it
// adds no event to any workflow's history.
import { createHash } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { exists } from '../activities/support/move-aside.js';
import type { Client } from '@temporalio/client';
import { claimFolders, ownerOf } from '../config/folder-owners.js';
import { updatedTime } from '../ledger/from-ledger.js';
import { stateJson, type LoopState } from '../ledger/loop-state.js';
import type { LoopConfig } from '../config/loop-config.js';
import type { LedgerRow } from '../ledger/rows.js';
import { LOOP_ID, LOOP_KIND, type LoopKind } from '../contract/search-attributes.js';
import { ledgerFileLines, ledgerLine } from '../ledger/ledger-lines.js';
import { checkCopy, copyProblemWords, heldRows, rowsAfter, type RowSource } from './copy-check.js';
import {
  appendLedgerRows,
  copyFileId,
  ledgerCopyPath,
  readCopyFile,
  recordCopyRepair,
  repairsPath,
  rewriteLedgerCopy,
  stateCopyPath,
  writeStateCopy,
  type CopyFileId,
  type CopyRepair,
} from './copy-files.js';
import { copyChangeWords, leftFile, sameFile } from './copy-file-ids.js';
import { holdCopyLock, releaseCopyLock } from './copy-lock.js';
import { HistoryRuns, type HistoryLedger } from './history-runs.js';

const LEDGER_COPY_INTERVAL_MS = 2_000;
/** Runs that closed this long before the last pass began are taken again (late visibility, clock skew). */
export const CLOSED_MARGIN_MS = 30_000;
/** A copy the keeper finds as it left it is still read whole and checked against history this often. */
const FULL_CHECK_EVERY_MS = 10 * 60_000;

interface Copy {
  /** Rows ledger.jsonl holds. */
  rows: number;
  /** A digest of every line this keeper left in the copy: a line the copy holds and history lacks is the copy's alone only if it is one of them. */
  lines: Set<string>;
  /** How many of each source's history rows the copy holds (all of them, as of the last pass). */
  held: Record<RowSource, number>;
  /** The rows of each history segment when the copy was last checked: history only grew at their ends while these hold. */
  segments: Map<string, number>;
  /** The file as this keeper left it: another inode, size or time means someone changed it since. */
  file: CopyFileId | null;
  checkedAt: number;
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
  /** Loops seen running: synced after they stop until a pass brought their last rows. */
  private readonly watched = new Set<string>();
  private readonly warned = new Set<string>();
  /** When the last pass began; before the first, when the keeper started (runs closed while no keeper ran are left as before). */
  private lastPassAt = Date.now();

  constructor(private readonly options: LedgerKeeperOptions) {
    this.runs = new HistoryRuns(options.client);
  }

  /**
   * One pass over every loop with a running generation or packaging workflow, and every loop one
   * of whose runs closed since the pass before: a run that started and ended between two passes
   * (a short resumption, a quick stop) was never seen running, and its rows would wait for the
   * loop's next start.
   */
  async syncAll(): Promise<void> {
    const running = new Set<string>();
    const closed = new Set<string>();
    const kinds: LoopKind[] = ['generation', 'packaging'];
    // Visibility is written a moment after a run closes, and clocks differ a little: a margin before the last pass.
    const passStarted = Date.now();
    const since = new Date(this.lastPassAt - CLOSED_MARGIN_MS).toISOString();
    const query =
      `${LOOP_KIND.name} IN (${kinds.map((kind) => `'${kind}'`).join(', ')}) AND ` +
      `(ExecutionStatus = 'Running' OR CloseTime >= '${since}')`;
    for await (const execution of this.options.client.workflow.list({ query })) {
      const loopId = execution.typedSearchAttributes.get(LOOP_ID);
      if (loopId === undefined) continue;
      if (execution.status.name === 'RUNNING') running.add(loopId);
      else closed.add(loopId);
    }
    this.lastPassAt = passStarted;
    for (const loopId of new Set([...running, ...this.watched, ...closed])) {
      let synced = false;
      try {
        synced = (await this.syncLoop(loopId)) !== null;
        this.warned.delete(loopId);
      } catch (error) {
        if (!this.warned.has(loopId))
          this.options.log?.(`ledger copy of loop ${loopId} not updated: ${(error as Error).message}`);
        this.warned.add(loopId);
      }
      // A stopped loop is let go only once a pass synced it: one that failed, or found its copy
      // held by a writer not yet known to be gone, is tried again next pass, however long ago it
      // closed (its close time soon falls out of the listing above).
      if (running.has(loopId) || !synced) this.watched.add(loopId);
      else this.watched.delete(loopId);
    }
  }

  /**
   * Bring one loop's copy to what history holds: checked whole (and repaired from history, with a
   * record of what was wrong) when it is not as this keeper left it, when history changed other
   * than at its ends (a reset, a run deleted) and every FULL_CHECK_EVERY_MS; else the rows that
   * are new are appended. Then state.json is rewritten when it changed or is gone. The rows
   * appended, or null when another live writer holds the copy's lock (nothing was synced).
   */
  async syncLoop(loopId: string): Promise<number | null> {
    const history = await this.runs.read(loopId);
    if (history.input === null || history.state === null) return 0;
    const stateDir = history.input.config.state_dir;
    const known = this.copies.get(stateDir);
    // Moved aside with the loop stopped (`start --fresh`): not to be undone.
    if (!history.running && !(await exists(stateDir))) return 0;
    if (history.running && (await ownerOf(stateDir)) === null) {
      // Emptied or deleted under the running loop (`rm -rf`; its steps may have made the folder
      // again for their logs): its owner files are written again, and the copy and state.json rebuilt below.
      await mkdir(stateDir, { recursive: true });
      await claimFolders(loopId, this.options.client.options.namespace, history.input.config);
      // Said only of a folder this keeper had kept before (a loop just started may not have claimed it yet).
      if (known !== undefined)
        this.options.log?.(
          `loop ${loopId}: the owner file of its state dir ${stateDir} was gone (the folder emptied or deleted?): written again; ` +
            "the ledger copy and state.json are rebuilt from history, and the generation's split is built again when a run needs it",
        );
    }
    if (!(await holdCopyLock(stateDir))) return null;
    const file = await copyFileId(stateDir);
    const now = Date.now();
    let copy: Copy;
    let appended: LedgerRow[];
    try {
      if (
        known !== undefined &&
        sameFile(known.file, file) &&
        !historyChanged(known.segments, history.segments) &&
        now - known.checkedAt < FULL_CHECK_EVERY_MS
      ) {
        copy = known;
        appended = rowsAfter(history.checked, copy.held);
        copy.file = leftFile(file, await appendLedgerRows(stateDir, appended));
        copy.rows += appended.length;
        for (const row of appended) copy.lines.add(lineDigest(ledgerLine(row)));
      } else {
        ({ copy, appended } = await this.checkAndRepair(loopId, stateDir, history, known, file));
      }
    } catch (error) {
      // What the copy holds is unknown now: it is checked whole next pass.
      this.copies.delete(stateDir);
      throw error;
    }
    copy.held = heldRows(history.checked);
    copy.segments = segmentLengths(history.segments);
    copy.updated = updatedTime(appended, copy.updated);
    this.copies.set(stateDir, copy);
    const state = stateJson(history.state, stateDir, copy.updated);
    const stateText = JSON.stringify(state);
    if (stateText !== copy.stateText || !(await exists(stateCopyPath(stateDir)))) {
      await writeStateCopy(stateDir, state);
      copy.stateText = stateText;
    }
    try {
      await this.options.onSynced?.({
        loopId,
        stateDir,
        config: history.input.config,
        appended,
        copyRows: copy.rows,
        state: history.state,
      });
    } catch (error) {
      this.options.log?.(`after the ledger copy of loop ${loopId}: ${(error as Error).message}`);
    }
    return appended.length;
  }

  /** Read the copy whole and check it against history: repair what is wrong (recorded first), then append what it lacks. */
  private async checkAndRepair(
    loopId: string,
    stateDir: string,
    history: HistoryLedger,
    known: Copy | undefined,
    file: CopyFileId | null,
  ): Promise<{ copy: Copy; appended: LedgerRow[] }> {
    const { text, file: read } = await readCopyFile(stateDir);
    // What this keeper left there, when it has looked before: a line history lacks and it never wrote is someone else's.
    const check = checkCopy(
      ledgerFileLines(text),
      history.checked,
      known ? (line) => known.lines.has(lineDigest(line)) : null,
    );
    // Rows lost under the keeper: the file cut short, replaced or deleted (an operator, a restore, `rm -rf`).
    const changed =
      known !== undefined && check.kept.length < known.rows ? copyChangeWords(known.file, file, known.rows) : null;
    // The file the check read, unless the repair replaced it.
    let repaired = read;
    if (!check.whole || changed !== null) {
      const found = [changed, copyProblemWords(check)].filter((words) => words !== null && words !== '').join('; ');
      const repair: CopyRepair = {
        time: new Date().toISOString(),
        loop_id: loopId,
        ledger: ledgerCopyPath(stateDir),
        found,
        removed: check.removed,
        restored: check.restored,
        reordered: check.reordered,
        appended: check.tail.length,
        rows: check.ledger.length,
      };
      await recordCopyRepair(stateDir, repair);
      if (!check.whole) repaired = await rewriteLedgerCopy(stateDir, check.kept);
      const kept = check.removed.length > 0 ? ` (the lines left out are kept in ${repairsPath(stateDir)})` : '';
      this.options.log?.(
        `ledger copy of loop ${loopId}: ${ledgerCopyPath(stateDir)} ${found}: ` +
          `${check.whole ? '' : `repaired from history${kept}, `}${check.tail.length} rows appended from history`,
      );
    }
    const append = await appendLedgerRows(stateDir, check.tail, { newlineFirst: check.unterminated });
    return {
      copy: {
        rows: check.ledger.length,
        lines: new Set(check.ledger.map((row) => lineDigest(ledgerLine(row)))),
        held: check.held,
        segments: new Map(),
        file: leftFile(repaired, append),
        checkedAt: Date.now(),
        updated: updatedTime(check.kept),
        stateText: known?.stateText ?? '',
      },
      appended: check.tail,
    };
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

function lineDigest(line: string): string {
  return createHash('sha1').update(line).digest('base64');
}

function segmentLengths(segments: HistoryLedger['segments']): Map<string, number> {
  return new Map(segments.map((segment) => [segment.key, segment.rows.length]));
}

/** A segment gone or shrunk (a reset replaced its run, retention or an operator deleted it): the copy is checked whole. */
function historyChanged(was: Map<string, number>, segments: HistoryLedger['segments']): boolean {
  const now = segmentLengths(segments);
  for (const [key, rows] of was) if ((now.get(key) ?? -1) < rows) return true;
  return false;
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
