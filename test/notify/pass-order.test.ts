// Notifications are a function of the ledger copy, not of how the keeper's passes and the
// notifier's reads interleave: the keeper may be several passes ahead of the notifier (a busy
// box, a slow first read), a notifier may restart between passes, and every event still reaches
// the receiver once, in ledger order, with the id of the row it was read from.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { LoopSynced } from '../../src/ledger-copy/ledger-keeper.js';
import { parseLedger } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow } from '../../src/ledger/rows.js';
import { readCursors } from '../../src/notify/cursor.js';
import { EventReader } from '../../src/notify/events.js';
import { Notifier } from '../../src/notify/notifier.js';
import type { NotifySettings } from '../../src/notify/settings.js';
import { keeperPass } from './keeper-pass.js';
import { startReceiver, type Receiver } from './receiver.js';

const SEED_LEDGER = fileURLToPath(new URL('../fixtures/ledger/seed-ledger.jsonl', import.meta.url));
const NOTIFY: NotifySettings = {
  runs_failing: 3,
  webhooks: [
    {
      url_env: 'HOOK',
      format: 'json',
      events: ['new_champion', 'reserve_verdict', 'generation_turnover', 'package_outcome', 'runs_failing'],
      timeout: '2s',
    },
  ],
};

let rows: LedgerRow[];
let expectedIds: string[];
let receiver: Receiver;
const stateDirs: string[] = [];
const notifiers: Notifier[] = [];
const hogs: ChildProcess[] = [];

beforeEach(async () => {
  rows = parseLedger(await readFile(SEED_LEDGER, 'utf8'), SEED_LEDGER).rows;
  const reader = new EventReader('spam', NOTIFY.runs_failing);
  expectedIds = rows.flatMap((row, index) => reader.read(row, index)).map((event) => event.id);
  receiver = await startReceiver();
});

afterEach(async () => {
  for (const notifier of notifiers.splice(0)) notifier.close();
  for (const hog of hogs.splice(0)) hog.kill('SIGKILL');
  await receiver.close();
  for (const dir of stateDirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

function notifier(): Notifier {
  const made = new Notifier({ env: { HOOK: receiver.url }, backoff: { firstMs: 20, maxMs: 100 } });
  notifiers.push(made);
  return made;
}

const delivered = () => receiver.delivered().map((body) => (body as { id: string }).id);

/**
 * One schedule: the copy's rows cut into passes at `cuts`; the keeper runs `lead` passes ahead
 * of the notifier's hook; at each pass index in `restarts` the notifier is drained and replaced
 * (a worker restart between passes).
 */
async function runSchedule(cuts: number[], lead: number, restarts: Set<number>): Promise<string[]> {
  const stateDir = await mkdtemp(path.join(tmpdir(), 'champion-loop-pass-order-'));
  stateDirs.push(stateDir);
  receiver.requests.length = 0;
  const bounds = [0, ...[...new Set(cuts)].sort((a, b) => a - b), rows.length];
  const slices = bounds.slice(1).map((end, i) => rows.slice(bounds[i], end));
  const synced: LoopSynced[] = [];
  let current = notifier();
  let handed = 0;
  const hand = async (): Promise<void> => {
    if (restarts.has(handed)) {
      await current.settled();
      current.close();
      current = notifier();
    }
    current.onSynced(synced[handed]!);
    handed += 1;
  };
  for (const slice of slices) {
    synced.push(await keeperPass(stateDir, NOTIFY, slice));
    if (synced.length > lead) await hand();
  }
  while (handed < synced.length) await hand();
  await current.settled();
  expect((await readCursors(stateDir)).HOOK?.delivered_rows).toBe(rows.length);
  return delivered();
}

describe('notifications in any order of keeper and notifier passes', () => {
  it('the keeper three passes ahead of the notifier (the clean-clone CI failure): every event once, ids from their rows', async () => {
    expect(await runSchedule([10, 20], 3, new Set())).toEqual(expectedIds);
  });

  it('a restart between passes while the keeper is ahead: nothing skipped, nothing sent twice', async () => {
    expect(await runSchedule([5, 10, 20, 25], 2, new Set([2, 3]))).toEqual(expectedIds);
  });

  it('any cuts, any lead, any restarts: the receiver gets the copy`s events in ledger order, each once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.integer({ min: 0, max: rows.length }), { maxLength: 8 }),
        fc.integer({ min: 0, max: 9 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 9 }), { maxLength: 3 }),
        async (cuts, lead, restarts) => {
          expect(await runSchedule(cuts, lead, new Set(restarts))).toEqual(expectedIds);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('with both cores hogged by busy processes: every event once, in ledger order', async () => {
    for (let i = 0; i < 2; i += 1) {
      hogs.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
    }
    expect(await runSchedule([3, 7, 10, 14, 20, 24, 29], 4, new Set([5]))).toEqual(expectedIds);
  });
});
