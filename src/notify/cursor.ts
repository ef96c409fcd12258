import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';

// `<state_dir>/notify.json`: for each webhook, how many ledger rows of ledger.jsonl it has been
// told about, and why the last delivery failed if it did. Written after each delivery, so a
// worker that restarts goes on from the first row not yet delivered (at least once: a crash
// between a delivery and this write delivers that event again).

const NOTIFY_FILE = 'notify.json';

export interface WebhookCursor {
  /** Rows of ledger.jsonl this webhook has been told about (their events delivered or refused). */
  readonly delivered_rows: number;
  /** Why the newest attempt failed (the URL redacted); null once one succeeds. */
  readonly error: string | null;
  readonly updated: string;
}

interface NotifyFile {
  readonly webhooks: Record<string, WebhookCursor>;
}

export function notifyFilePath(stateDir: string): string {
  return path.join(stateDir, NOTIFY_FILE);
}

/** The cursors of a state dir; none when nothing was delivered yet (or the file is unreadable). */
export async function readCursors(stateDir: string): Promise<Record<string, WebhookCursor>> {
  let text: string;
  try {
    text = await readFile(notifyFilePath(stateDir), 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
  const parsed = JSON.parse(text) as Partial<NotifyFile>;
  return parsed.webhooks ?? {};
}

/** One loop's cursors, written whole (beside the file, then renamed) one write at a time. */
export class CursorFile {
  private writing: Promise<void> = Promise.resolve();

  constructor(
    private readonly stateDir: string,
    private readonly cursors: Record<string, WebhookCursor>,
    private readonly log: (message: string) => void,
  ) {}

  get(name: string): WebhookCursor | undefined {
    return this.cursors[name];
  }

  /** Record a webhook's cursor; resolves once the file holds it. */
  set(name: string, deliveredRows: number, error: string | null): Promise<void> {
    const before = this.cursors[name];
    if (before && before.delivered_rows === deliveredRows && before.error === error) return this.writing;
    this.cursors[name] = { delivered_rows: deliveredRows, error, updated: new Date().toISOString() };
    this.writing = this.writing.then(() =>
      this.write().catch((failure: unknown) =>
        this.log(`${notifyFilePath(this.stateDir)} not written: ${(failure as Error).message}`),
      ),
    );
    return this.writing;
  }

  private async write(): Promise<void> {
    await mkdir(this.stateDir, { recursive: true });
    const file = notifyFilePath(this.stateDir);
    const temporary = `${file}.${process.pid}.tmp`;
    const content: NotifyFile = { webhooks: this.cursors };
    await writeFile(temporary, `${JSON.stringify(content, null, 2)}\n`);
    await rename(temporary, file);
  }
}
