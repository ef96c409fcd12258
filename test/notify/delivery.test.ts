// Delivery against a real HTTP server on localhost that fails, hangs and answers slowly: every
// event reaches the receiver, in ledger order, exactly once when it answers, and at least once
// across a restart of the notifier; a hanging receiver costs one timeout per attempt and holds
// up neither the keeper's hook nor another webhook.
import { mkdtemp, readFile, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { appendLedgerRows } from '../../src/ledger-copy/copy-files.js';
import { parseLedger } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { notifyFilePath, readCursors } from '../../src/notify/cursor.js';
import { EventReader, type NotifyEvent } from '../../src/notify/events.js';
import { Notifier } from '../../src/notify/notifier.js';
import { notifyProblems } from '../../src/notify/problems.js';
import type { NotifySettings } from '../../src/notify/settings.js';
import { keeperPass } from './keeper-pass.js';
import { startReceiver, type Receiver } from './receiver.js';

const SEED_LEDGER = fileURLToPath(new URL('../fixtures/ledger/seed-ledger.jsonl', import.meta.url));
const FAST = { firstMs: 50, maxMs: 400 };

let stateDir: string;
let rows: LedgerRow[];
let expected: NotifyEvent[];
const receivers: Receiver[] = [];
const notifiers: Notifier[] = [];

beforeEach(async () => {
  stateDir = await mkdtemp(path.join(tmpdir(), 'champion-loop-notify-'));
  rows = parseLedger(await readFile(SEED_LEDGER, 'utf8'), SEED_LEDGER).rows;
  const reader = new EventReader('spam', 3);
  expected = rows.flatMap((row, index) => reader.read(row, index));
});

afterEach(async () => {
  for (const notifier of notifiers.splice(0)) notifier.close();
  for (const receiver of receivers.splice(0)) await receiver.close();
  await rm(stateDir, { recursive: true, force: true });
});

async function receiver(answer?: Receiver['answer']): Promise<Receiver> {
  const started = await startReceiver(answer);
  receivers.push(started);
  return started;
}

function notifier(env: NodeJS.ProcessEnv, logs: string[] = []): Notifier {
  const made = new Notifier({ env, backoff: FAST, log: (message) => logs.push(message) });
  notifiers.push(made);
  return made;
}

/** What the ledger keeper hands over after appending `appended` to the copy. */
async function pass(target: Notifier, notify: NotifySettings, appended: LedgerRow[]): Promise<unknown> {
  const synced = await keeperPass(stateDir, notify, appended);
  return target.onSynced(synced);
}

const webhook = (urlEnv: string, extra: Partial<NotifySettings['webhooks'][number]> = {}) => ({
  url_env: urlEnv,
  format: 'json' as const,
  events: [
    'new_champion',
    'reserve_verdict',
    'generation_turnover',
    'package_outcome',
    'runs_failing',
  ] as NotifySettings['webhooks'][number]['events'],
  timeout: '2s' as const,
  ...extra,
});

const ids = (bodies: unknown[]) =>
  bodies.map((body) => (body as { id?: string; event_id?: string }).id ?? (body as { event_id: string }).event_id);

describe('webhook delivery', () => {
  it('a receiver that fails three times first: every event delivered exactly once, in ledger order, the cursor at the end', async () => {
    const hook = await receiver((_, index) => (index < 3 ? { status: 500, body: 'down' } : { status: 200 }));
    const logs: string[] = [];
    const target = notifier({ HOOK: hook.url }, logs);
    const notify = { webhooks: [webhook('HOOK')], runs_failing: 3 };
    // The rows arrive over three passes, as the keeper appends them.
    await pass(target, notify, rows.slice(0, 10));
    await pass(target, notify, rows.slice(10, 20));
    await pass(target, notify, rows.slice(20));
    await target.settled();

    expect(hook.requests.slice(0, 3).map((r) => r.status)).toEqual([500, 500, 500]);
    expect(ids(hook.delivered())).toEqual(expected.map((event) => event.id));
    expect(hook.delivered()).toEqual(JSON.parse(JSON.stringify(expected)));
    // Three failures, then one request per event: no event went twice once taken.
    expect(hook.requests).toHaveLength(expected.length + 3);
    expect(logs.some((line) => line.includes('attempt 1 failed') && line.includes('HTTP 500: down'))).toBe(true);
    expect((await readCursors(stateDir)).HOOK).toMatchObject({ delivered_rows: rows.length, error: null });
  });

  it('a receiver that hangs: each attempt ends at the timeout, the hook returns at once, and another webhook gets everything meanwhile', async () => {
    const stuck = await receiver(() => 'hang');
    const healthy = await receiver();
    const logs: string[] = [];
    const target = notifier({ STUCK: stuck.url, HEALTHY: healthy.url }, logs);
    const notify = {
      webhooks: [webhook('STUCK', { timeout: '300ms' }), webhook('HEALTHY', { format: 'slack' })],
      runs_failing: 3,
    };
    // The keeper's pass is not held up: the hook only queues (it returns nothing to wait for, and
    // nothing was delivered when it returned).
    expect(await pass(target, notify, rows)).toBeUndefined();
    expect(healthy.delivered()).toEqual([]);

    await expect.poll(() => healthy.delivered().length, { timeout: 10_000 }).toBe(expected.length);
    expect(ids(healthy.delivered())).toEqual(expected.map((event) => event.id));
    expect((healthy.delivered()[0] as { text: string }).text).toMatch(
      /^:arrows_counterclockwise: Loop spam: generation 1 started/,
    );
    // Meanwhile the stuck receiver saw the first event again and again, each attempt cut off at its timeout.
    await expect.poll(() => stuck.requests.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(3);
    expect(new Set(ids(stuck.requests.map((r) => r.body)))).toEqual(new Set([expected[0]?.id]));
    const gaps = stuck.requests.slice(1).map((r, i) => r.at - (stuck.requests[i]?.at ?? 0));
    for (const gap of gaps) expect(gap).toBeGreaterThanOrEqual(300);
    expect(logs.some((line) => line.includes('no answer within 300 ms'))).toBe(true);
    const cursors = await readCursors(stateDir);
    expect(cursors.STUCK).toMatchObject({ delivered_rows: 0, error: 'no answer within 300 ms' });
    expect(cursors.HEALTHY?.delivered_rows).toBe(rows.length);

    // It comes back: everything goes out, in order.
    stuck.answer = () => ({ status: 200 });
    await expect.poll(() => stuck.delivered().length, { timeout: 10_000 }).toBe(expected.length);
    expect(ids(stuck.delivered())).toEqual(expected.map((event) => event.id));
  });

  it('a receiver that answers slowly (within the timeout): one request per event, nothing retried', async () => {
    const slow = await receiver(() => ({ status: 200, delayMs: 150 }));
    const target = notifier({ SLOW: slow.url });
    const started = Date.now();
    await pass(target, { webhooks: [webhook('SLOW', { timeout: '1s' })], runs_failing: 3 }, rows);
    await target.settled();
    expect(ids(slow.requests.map((r) => r.body))).toEqual(expected.map((event) => event.id));
    expect(slow.requests.every((r) => r.status === 200)).toBe(true);
    // One at a time, in order: the events took at least their answers' delays end to end.
    expect(Date.now() - started).toBeGreaterThanOrEqual(150 * expected.length);
  });

  it('at least once across a restart: a new notifier goes on from the cursor in notify.json, and what it had delivered is not sent again', async () => {
    // The receiver takes four events, then hangs: the notifier is closed (the worker stops) with the rest undelivered.
    const hook = await receiver((_, index) => (index < 4 ? { status: 200 } : 'hang'));
    const notify = { webhooks: [webhook('HOOK', { timeout: '5s' })], runs_failing: 3 };
    const first = notifier({ HOOK: hook.url });
    await pass(first, notify, rows.slice(0, 20));
    await expect.poll(() => hook.requests.length, { timeout: 10_000 }).toBe(5);
    first.close();
    const delivered = (await readCursors(stateDir)).HOOK?.delivered_rows ?? 0;
    expect(delivered).toBe(expected[3]!.row_index + 1);

    // Rows keep coming while no notifier runs; a new one (a restarted worker) sees only the newest pass.
    hook.answer = () => ({ status: 200 });
    await appendLedgerRows(stateDir, rows.slice(20, 25));
    const second = notifier({ HOOK: hook.url });
    await pass(second, notify, rows.slice(25));
    await second.settled();

    // Every event arrived; the four taken before the restart were not sent again.
    expect(ids(hook.delivered())).toEqual(expected.map((event) => event.id));
    expect((await readCursors(stateDir)).HOOK?.delivered_rows).toBe(rows.length);
  });

  it('a webhook added to a running loop starts with the rows of its first pass, not the history before it, even across a restart before its first delivery', async () => {
    const hook = await receiver(() => 'hang');
    await appendLedgerRows(stateDir, rows.slice(0, 20));
    const notify = { webhooks: [webhook('HOOK')], runs_failing: 3 };
    const first = notifier({ HOOK: hook.url });
    await pass(first, notify, rows.slice(20));
    await expect.poll(() => hook.requests.length).toBe(1);
    first.close();
    // Its start was written down before anything was delivered.
    expect((await readCursors(stateDir)).HOOK?.delivered_rows).toBe(20);

    hook.answer = () => ({ status: 200 });
    const second = notifier({ HOOK: hook.url });
    await pass(second, notify, []);
    await second.settled();
    expect(ids(hook.delivered())).toEqual(expected.filter((e) => e.row_index >= 20).map((e) => e.id));
  });

  it('a copy moved aside (start --fresh) while the worker runs: the new copy is told from its first row', async () => {
    const hook = await receiver();
    const notify = { webhooks: [webhook('HOOK')], runs_failing: 3 };
    const target = notifier({ HOOK: hook.url });
    await pass(target, notify, rows.slice(0, 20));
    await target.settled();
    await rename(stateDir, `${stateDir}.aside-1`);
    try {
      await pass(target, notify, rows.slice(0, 12));
      await target.settled();
      const first = expected.filter((e) => e.row_index < 20).map((e) => e.id);
      const again = expected.filter((e) => e.row_index < 12).map((e) => e.id);
      expect(ids(hook.delivered())).toEqual([...first, ...again]);
      expect((await readCursors(stateDir)).HOOK?.delivered_rows).toBe(12);
    } finally {
      await rm(`${stateDir}.aside-1`, { recursive: true, force: true });
    }
  });

  it('a missing environment variable: a clear error in the log and notify.json; the events wait and nothing is lost', async () => {
    const hook = await receiver();
    const logs: string[] = [];
    const notify = { webhooks: [webhook('NOT_SET_HOOK')], runs_failing: 3 };
    const first = notifier({}, logs);
    await pass(first, notify, rows);
    await expect.poll(async () => (await readCursors(stateDir)).NOT_SET_HOOK?.error ?? '').toContain('NOT_SET_HOOK');
    expect(logs[0]).toContain(
      'environment variable NOT_SET_HOOK is not set on this orchestrator worker: set it to the webhook URL and restart the worker',
    );
    // What `status` can print from notify.json.
    const [problem] = await notifyProblems(stateDir);
    expect(problem).toMatch(
      /^notifications: webhook NOT_SET_HOOK waits at ledger row 0 since .+: environment variable NOT_SET_HOOK/,
    );
    first.close();
    // The worker restarted with the variable set: everything goes out.
    const second = notifier({ NOT_SET_HOOK: hook.url });
    await pass(second, notify, []);
    await second.settled();
    expect(ids(hook.delivered())).toEqual(expected.map((event) => event.id));
    expect(await notifyProblems(stateDir)).toEqual([]);
  });

  it('the URL and its token appear in no log line and not in notify.json, even when the receiver echoes them', async () => {
    const hook = await receiver((request, index) =>
      index < 2 ? { status: 503, body: `no route to ${request.path}` } : { status: 200 },
    );
    const logs: string[] = [];
    const target = notifier({ SLACK_WEBHOOK_URL: hook.url }, logs);
    await pass(
      target,
      { webhooks: [webhook('SLACK_WEBHOOK_URL', { format: 'slack' })], runs_failing: 3 },
      rows.slice(0, 3),
    );
    await expect.poll(() => hook.delivered().length, { timeout: 10_000 }).toBe(1);
    await target.settled();
    expect(logs.length).toBeGreaterThan(0);
    expect(logs.join('\n')).toContain('no route to $SLACK_WEBHOOK_URL');
    expect(logs.join('\n')).not.toContain('SECRETTOKEN');
    expect(await readFile(notifyFilePath(stateDir), 'utf8')).not.toContain('SECRETTOKEN');
  });

  it('a receiver that refuses a payload for good (a 4xx): logged and skipped, the next event goes on', async () => {
    const hook = await receiver((_, index) =>
      index === 0 ? { status: 400, body: 'invalid_payload' } : { status: 200 },
    );
    const logs: string[] = [];
    const target = notifier({ HOOK: hook.url }, logs);
    await pass(target, { webhooks: [webhook('HOOK')], runs_failing: 3 }, rows);
    await target.settled();
    expect(ids(hook.delivered())).toEqual(expected.slice(1).map((event) => event.id));
    expect(logs.some((line) => line.includes('refused by the receiver, skipped: HTTP 400: invalid_payload'))).toBe(
      true,
    );
  });
});
