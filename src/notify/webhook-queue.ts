import { durationMs } from '../config/duration.js';
import type { CursorFile } from './cursor.js';
import type { NotifyEvent } from './events.js';
import { payloadOf } from './payloads.js';
import { postNotification, type PostOutcome } from './post.js';
import { webhookName, type WebhookSettings } from './settings.js';

// One webhook of one loop: its events in ledger order, delivered one at a time on a chain of
// its own (a slow or dead receiver holds up nobody else), retried with backoff until the
// receiver takes each one, the cursor written after each.

/** Waits between attempts: doubling from `firstMs` up to `maxMs`. */
export interface Backoff {
  readonly firstMs: number;
  readonly maxMs: number;
}

export const DEFAULT_BACKOFF: Backoff = { firstMs: 1_000, maxMs: 5 * 60_000 };

export interface WebhookQueueOptions {
  readonly loopId: string;
  readonly webhook: WebhookSettings;
  readonly cursors: CursorFile;
  /** Rows of the ledger this webhook was already told about. */
  readonly deliveredRows: number;
  readonly backoff: Backoff;
  readonly env: NodeJS.ProcessEnv;
  readonly log: (message: string) => void;
  /** Aborted when the notifier closes: waits end and requests are cut off. */
  readonly signal: AbortSignal;
}

export class WebhookQueue {
  private webhook: WebhookSettings;
  private readonly pending: NotifyEvent[] = [];
  /** Rows read so far: once nothing is pending, the webhook has been told about all of them. */
  private knownRows: number;
  private deliveredRows: number;
  private running = false;
  private idle: Promise<void> = Promise.resolve();
  private lastError: string | null = null;
  private readonly stopping = new AbortController();
  private readonly signal: AbortSignal;

  constructor(private readonly options: WebhookQueueOptions) {
    this.signal = AbortSignal.any([options.signal, this.stopping.signal]);
    this.webhook = options.webhook;
    this.deliveredRows = options.deliveredRows;
    this.knownRows = options.deliveredRows;
  }

  get name(): string {
    return webhookName(this.webhook);
  }

  get delivered(): number {
    return this.deliveredRows;
  }

  /** loop.yaml changed (a config change): format, events and timeout apply from the next event on. */
  update(webhook: WebhookSettings): void {
    this.webhook = webhook;
  }

  /** loop.yaml no longer lists it: what is pending is left for notify.json's cursor. */
  stop(): void {
    this.stopping.abort();
  }

  /**
   * Rows up to `rows` were read; `events` are theirs (those this webhook wants are queued).
   * Events of rows read before are ignored, so handing the same rows over again queues nothing twice.
   */
  add(events: readonly NotifyEvent[], rows: number): void {
    for (const event of events) {
      if (event.row_index >= this.knownRows && this.webhook.events.includes(event.type)) this.pending.push(event);
    }
    this.knownRows = Math.max(this.knownRows, rows);
    if (!this.running) {
      this.running = true;
      this.idle = this.drain();
    }
  }

  /** Resolves once everything queued so far was delivered (or the notifier closed). */
  settled(): Promise<void> {
    return this.idle;
  }

  private async drain(): Promise<void> {
    const { signal } = this;
    for (;;) {
      if (signal.aborted) {
        this.running = false;
        return;
      }
      const event = this.pending[0];
      if (event === undefined) {
        // Rows without an event for this webhook: told about all of them.
        await this.advance(this.knownRows, null);
        // Rows added while the cursor was written (with or without events) are told about too.
        if (this.pending.length > 0 || this.deliveredRows < this.knownRows) continue;
        // Cleared in the same turn as the check: an `add` after it starts a new drain.
        this.running = false;
        return;
      }
      let attempt = 0;
      for (;;) {
        attempt += 1;
        const outcome = await this.attempt(event);
        if (signal.aborted) break;
        if (outcome.kind === 'delivered') {
          if (this.lastError !== null) this.options.log(`${this.label(event)} delivered after ${attempt} attempts`);
          this.lastError = null;
          break;
        }
        if (outcome.kind === 'refused') {
          this.options.log(`${this.label(event)} refused by the receiver, skipped: ${outcome.reason}`);
          this.lastError = null;
          break;
        }
        const waitMs = Math.min(this.options.backoff.firstMs * 2 ** (attempt - 1), this.options.backoff.maxMs);
        // The same reason again is logged at most once per maximal wait.
        if (outcome.reason !== this.lastError || waitMs >= this.options.backoff.maxMs)
          this.options.log(
            `${this.label(event)} attempt ${attempt} failed, retrying in ${waitMs} ms: ${outcome.reason}`,
          );
        this.lastError = outcome.reason;
        await this.options.cursors.set(this.name, this.deliveredRows, outcome.reason);
        await sleep(waitMs, signal);
        if (signal.aborted) break;
      }
      if (signal.aborted) continue;
      this.pending.shift();
      await this.advance(event.row_index + 1, null);
    }
  }

  private async advance(rows: number, error: string | null): Promise<void> {
    if (rows < this.deliveredRows) return;
    this.deliveredRows = rows;
    await this.options.cursors.set(this.name, rows, error);
  }

  private async attempt(event: NotifyEvent): Promise<PostOutcome> {
    const { url_env, format, timeout } = this.webhook;
    const url = this.options.env[url_env];
    if (url === undefined || url.trim() === '') {
      return {
        kind: 'retry',
        reason:
          `environment variable ${url_env} (loop.yaml notify.webhooks url_env) is not set on the orchestrator worker: ` +
          'set it to the webhook URL and restart the worker; notifications wait until then',
      };
    }
    return postNotification(url, payloadOf(event, format), {
      timeoutMs: durationMs(timeout),
      urlName: url_env,
      signal: this.signal,
    });
  }

  private label(event: NotifyEvent): string {
    return `loop ${this.options.loopId}, webhook ${this.name}: ${event.type} ${event.id}`;
  }
}

/** Wait `ms`, or less if `signal` aborts first; never rejects. Unreferenced: it keeps no process alive. */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    timer.unref();
    signal.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
  });
}
