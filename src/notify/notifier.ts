import { copyFileId, readLedgerCopy } from '../ledger-copy/copy-files.js';
import type { LoopSynced } from '../ledger-copy/ledger-keeper.js';
import type { LedgerRow } from '../ledger/rows.js';
import { CursorFile, readCursors } from './cursor.js';
import { EventReader, type NotifyEvent } from './events.js';
import { webhookName, type NotifySettings } from './settings.js';
import { DEFAULT_BACKOFF, WebhookQueue, type Backoff } from './webhook-queue.js';

// Notifications follow the ledger copy, outside every workflow: the orchestrator worker's ledger
// keeper hands each pass's new rows here (`onSynced`), which returns at once; reading events off
// them and delivering them happen on chains of their own. So notifying adds no history event,
// never holds up the loop or the copy, and no URL ever reaches loop.yaml or history.

export interface NotifierOptions {
  readonly log?: (message: string) => void;
  /** Where webhook URLs are read, at delivery time. */
  readonly env?: NodeJS.ProcessEnv;
  readonly backoff?: Backoff;
}

/** One loop's notifications: its event reader, its webhooks' queues, its cursors. */
interface LoopNotifications {
  readonly reader: EventReader;
  readonly cursors: CursorFile;
  readonly queues: Map<string, WebhookQueue>;
  /** Rows of ledger.jsonl read so far. */
  rows: number;
  /** `runs_failing` the reader was made with: a change makes a new reader. */
  runsFailing: number;
  /** The ledger.jsonl read (its inode): another file there is another copy (`start --fresh` moved this one aside). */
  readonly copyFile: number | null;
}

export class Notifier {
  private readonly loops = new Map<string, LoopNotifications>();
  /** Each state dir's passes, applied in order and off the keeper's path. */
  private readonly chains = new Map<string, Promise<void>>();
  private readonly closing = new AbortController();
  private readonly log: (message: string) => void;

  constructor(private readonly options: NotifierOptions = {}) {
    this.log = options.log ?? (() => undefined);
  }

  /** The ledger keeper's hook: queue this pass's rows and return at once. */
  onSynced(synced: LoopSynced): void {
    const { notify } = synced.config;
    const loaded = this.loops.has(synced.stateDir);
    if (notify === undefined && !loaded) return;
    if (this.closing.signal.aborted) return;
    const before = this.chains.get(synced.stateDir) ?? Promise.resolve();
    const next = before
      .then(() => this.apply(synced, notify))
      .catch((error: unknown) =>
        this.log(`loop ${synced.loopId}: notifications not queued: ${(error as Error).message}`),
      );
    this.chains.set(synced.stateDir, next);
  }

  /** Resolves once every pass so far is read and everything queued is delivered (tests; a drain on shutdown). */
  async settled(): Promise<void> {
    await Promise.all(this.chains.values());
    await Promise.all([...this.loops.values()].flatMap((loop) => [...loop.queues.values()].map((q) => q.settled())));
  }

  /** Stop: waits and requests in flight end now; what was not delivered is delivered after the next start. */
  close(): void {
    this.closing.abort();
  }

  /** Let what is queued go out for up to `graceMs`, then close. */
  async finish(graceMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const grace = new Promise<void>((resolve) => {
      timer = setTimeout(resolve, graceMs);
    });
    await Promise.race([this.settled(), grace]);
    clearTimeout(timer);
    this.close();
  }

  private async apply(synced: LoopSynced, notify: NotifySettings | undefined): Promise<void> {
    let loop = this.loops.get(synced.stateDir);
    // The ledger.jsonl read (its inode): another file there is another copy.
    const copyFile = (await copyFileId(synced.stateDir))?.ino ?? null;
    if (loop && (notify === undefined || loop.copyFile !== copyFile)) {
      // notify: removed by a config change, or a new copy: what was queued stays undelivered in
      // notify.json's cursors (the old copy's went aside with it); a new section starts afresh.
      for (const queue of loop.queues.values()) queue.stop();
      this.loops.delete(synced.stateDir);
      loop = undefined;
    }
    if (notify === undefined) return;
    // This pass's rows are rows `first` to `end - 1` of the copy, whatever passes came before or
    // after it: an event's place (and id) is its row's index, never a count of passes.
    const end = synced.copyRows;
    const first = end - synced.appended.length;
    if (loop === undefined || loop.runsFailing !== notify.runs_failing) {
      // A new reader reads the copy from its first row (a streak of failed runs may span passes);
      // rows later passes appended already are left to those passes.
      const rows = (await readLedgerCopy(synced.stateDir)).slice(0, end);
      const cursors = loop?.cursors ?? new CursorFile(synced.stateDir, await readCursors(synced.stateDir), this.log);
      loop = {
        reader: new EventReader(synced.loopId, notify.runs_failing),
        cursors,
        queues: loop?.queues ?? new Map<string, WebhookQueue>(),
        rows: rows.length,
        runsFailing: notify.runs_failing,
        copyFile,
      };
      this.loops.set(synced.stateDir, loop);
      // A webhook with no cursor yet starts with this pass: the rows before it happened before it was configured.
      await this.reconcile(synced.loopId, loop, notify, Math.min(first, rows.length), rows.length);
      const from = Math.min(...[...loop.queues.values()].map((queue) => queue.delivered), rows.length);
      const events = readEvents(loop.reader, rows, 0).filter((event) => event.row_index >= from);
      for (const queue of loop.queues.values()) queue.add(events, loop.rows);
      return;
    }
    await this.reconcile(synced.loopId, loop, notify, Math.max(first, loop.rows), Math.max(end, loop.rows));
    if (end <= loop.rows) return;
    const rows =
      first <= loop.rows
        ? synced.appended.slice(loop.rows - first)
        : // Rows between the last pass read and this one: a pass this notifier never saw (its chain
          // was reset by an error), so read them from the copy.
          (await readLedgerCopy(synced.stateDir)).slice(loop.rows, end);
    const events = readEvents(loop.reader, rows, loop.rows);
    loop.rows += rows.length;
    for (const queue of loop.queues.values()) queue.add(events, loop.rows);
  }

  /** Queues for the webhooks loop.yaml lists now: new ones start at row `start`, dropped ones get nothing more. */
  private async reconcile(
    loopId: string,
    loop: LoopNotifications,
    notify: NotifySettings,
    start: number,
    rows: number,
  ): Promise<void> {
    const wanted = new Set<string>();
    for (const webhook of notify.webhooks) {
      const name = webhookName(webhook);
      wanted.add(name);
      const queue = loop.queues.get(name);
      if (queue) {
        queue.update(webhook);
        continue;
      }
      // A cursor past the copy's end belongs to a copy moved aside (start-over): this one starts afresh.
      const saved = loop.cursors.get(name)?.delivered_rows;
      const deliveredRows = saved !== undefined && saved <= rows ? saved : start;
      const env = this.options.env ?? process.env;
      if (!env[webhook.url_env]?.trim())
        this.log(
          `loop ${loopId}, webhook ${name}: environment variable ${webhook.url_env} is not set on this orchestrator worker: ` +
            'set it to the webhook URL and restart the worker; its notifications wait until then',
        );
      // Its start is written down before anything is delivered, so a restart before its first
      // delivery still starts there.
      if (saved !== deliveredRows) await loop.cursors.set(name, deliveredRows, null);
      loop.queues.set(
        name,
        new WebhookQueue({
          loopId,
          webhook,
          cursors: loop.cursors,
          deliveredRows,
          backoff: this.options.backoff ?? DEFAULT_BACKOFF,
          env,
          log: this.log,
          signal: this.closing.signal,
        }),
      );
    }
    for (const [name, queue] of [...loop.queues]) {
      if (wanted.has(name)) continue;
      queue.stop();
      loop.queues.delete(name);
    }
  }
}

/** The events of `rows`, the first at ledger index `first`. */
function readEvents(reader: EventReader, rows: readonly LedgerRow[], first: number): NotifyEvent[] {
  return rows.flatMap((row, offset) => reader.read(row, first + offset));
}
