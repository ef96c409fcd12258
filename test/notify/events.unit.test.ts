import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parseLedger } from '../../src/ledger/ledger-lines.js';
import type { LedgerRow, RunRow } from '../../src/ledger/rows.js';
import { EventReader, type NotifyEvent } from '../../src/notify/events.js';

const SEED_LEDGER = fileURLToPath(new URL('../fixtures/ledger/seed-ledger.jsonl', import.meta.url));

async function seedRows(): Promise<LedgerRow[]> {
  return parseLedger(await readFile(SEED_LEDGER, 'utf8'), SEED_LEDGER).rows;
}

function readAll(rows: readonly LedgerRow[], runsFailing = 3, loopId = 'spam'): NotifyEvent[] {
  const reader = new EventReader(loopId, runsFailing);
  return rows.flatMap((row, index) => reader.read(row, index));
}

function run(runId: string, status: RunRow['status'], error: string | null = null): RunRow {
  return {
    type: 'run',
    generation: 1,
    round: 1,
    seed: 1,
    candidate: runId.split('-').pop() ?? runId,
    run_id: runId,
    config_path: `${runId}.yaml`,
    config_sha256: 'x',
    status,
    train_rc: status === 'train_failed' ? 127 : 0,
    started: '2026-01-05T08:00:00.000Z',
    finished: '2026-01-05T08:00:01.000Z',
    epochs_run: null,
    checkpoints: [],
    error,
  };
}

describe('events read off the ledger', () => {
  it('the seed ledger: four new champions, one reserve verdict (the other check is stale), two generations, one package outcome, in row order', async () => {
    const rows = await seedRows();
    const events = readAll(rows);
    expect(events.map((event) => event.type).sort()).toEqual(
      [
        ...Array<string>(4).fill('new_champion'),
        'reserve_verdict',
        ...Array<string>(2).fill('generation_turnover'),
        'package_outcome',
      ].sort(),
    );
    // Each event's id names its loop, its row and its kind; the row is where the index says.
    for (const event of events) {
      expect(event.id).toBe(`spam/${event.row_index}/${event.type}`);
      expect(event.loop).toBe('spam');
      expect(rows[event.row_index]?.type).toBe(
        {
          new_champion: 'champion',
          reserve_verdict: 'reserve_check',
          generation_turnover: 'generation',
          package_outcome: 'package',
          runs_failing: 'run',
          split_failed: 'split',
        }[event.type],
      );
    }
    expect(events.map((event) => event.row_index)).toEqual(
      [...events.map((event) => event.row_index)].sort((a, b) => a - b),
    );
  });

  it('a new champion names itself, its counts and the champion before it', async () => {
    const events = readAll(await seedRows()).filter((event) => event.type === 'new_champion');
    const second = events[1];
    expect(second?.text).toMatch(
      /^Loop spam: new champion in generation 1: wide \(.+, checkpoint-0002\.pt\), Fail->Pass 7\/60, Pass->Fail \d+\/\d+ on test \(before: base/,
    );
    expect(second?.details).toMatchObject({ champion: { candidate: 'wide' }, previous: { candidate: 'base' } });
    expect(events[0]?.text).toContain('the first of the generation');
  });

  it('the failed reserve check says FAILED with the reserve counts and p-values; the next generation says why it opened', async () => {
    const events = readAll(await seedRows());
    const verdict = events.find((event) => event.type === 'reserve_verdict' && event.details.verdict === 'fail');
    expect(verdict?.text).toContain('FAILED: the generation advances');
    expect(verdict?.text).toContain('reserve Fail->Pass 20/60 (p=0.0022)');
    expect(verdict?.details).toMatchObject({ verdict: 'fail', status: 'ok', f2p_p: expect.any(Number) as number });
    const turnover = events.filter((event) => event.type === 'generation_turnover');
    expect(turnover.map((event) => event.text)).toEqual([
      'Loop spam: generation 1 started',
      expect.stringMatching(
        /^Loop spam: generation 2 opened \(reserve_failed\); the champion before it: wide /,
      ) as string,
    ]);
  });

  it('a package outcome: the finished row, with the log its launched row named and succeeded or failed by exit code', async () => {
    const rows = await seedRows();
    const [event] = readAll(rows).filter((e) => e.type === 'package_outcome');
    const launched = rows.find((row) => row.type === 'package' && row.event === 'launched');
    expect(launched?.type === 'package' && launched.log).toBeTruthy();
    expect(event?.details).toMatchObject({ event: 'finished', outcome: 'succeeded', exit_code: 0 });
    expect(event?.details.log).toBe(launched?.type === 'package' ? launched.log : undefined);
    const failed = readAll([{ ...(launched as LedgerRow & { type: 'package' }), event: 'finished', exit_code: 3 }]);
    expect(failed[0]?.details.outcome).toBe('failed');
    expect(failed[0]?.text).toContain('FAILED with exit code 3');
    const dropped = readAll([{ ...(launched as LedgerRow & { type: 'package' }), event: 'dropped' }]);
    expect(dropped[0]?.details.outcome).toBe('dropped');
  });

  it('a stale reserve check (the champion changed while it ran) tells nobody anything', async () => {
    const check = (await seedRows()).find((row) => row.type === 'reserve_check');
    expect(check).toBeDefined();
    expect(readAll([{ ...(check as LedgerRow & { type: 'reserve_check' }), stale_champion: true }])).toEqual([]);
  });

  it('runs failing in a row: one event when the streak reaches N, naming the last N runs and the last error', () => {
    const failed = (n: number) =>
      run(`champ-g001-r000${n}-a`, 'train_failed', `command not found: /nope (loop.yaml commands.train) #${n}`);
    const rows = [
      run('ok-1', 'trained'),
      failed(1),
      failed(2),
      run('ens', 'ensemble'),
      failed(3),
      failed(4),
      failed(5),
    ];
    const events = readAll(rows, 3);
    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event?.type).toBe('runs_failing');
    expect(event?.row_index).toBe(4);
    expect(event?.details.count).toBe(3);
    expect((event?.details.runs as { run_id: string }[]).map((r) => r.run_id)).toEqual([
      'champ-g001-r0001-a',
      'champ-g001-r0002-a',
      'champ-g001-r0003-a',
    ]);
    expect(event?.text).toContain('3 training runs in a row failed');
    expect(event?.text).toContain('#3');
    expect(event?.text).toContain('commands.train');
  });

  it('a split given up: one event naming the generation, that nothing trains until a resume, and why', () => {
    const error = 'buildSplit: no split within 1s (timeouts.split), in both attempts; raise timeouts.split';
    const rows: LedgerRow[] = [
      run('ok-1', 'trained'),
      { type: 'split', event: 'failed', generation: 2, split_seed: 7, error, time: '2026-01-05T09:00:00.000Z' },
    ];
    const events = readAll(rows);
    expect(events.map(({ id, type, generation, time }) => ({ id, type, generation, time }))).toEqual([
      { id: 'spam/1/split_failed', type: 'split_failed', generation: 2, time: '2026-01-05T09:00:00.000Z' },
    ]);
    expect(events[0]?.text).toBe(
      `Loop spam: the split of generation 2 failed and is not tried again; no training runs until it is fixed and the loop is resumed: ${error}`,
    );
    expect(events[0]?.details).toEqual({ split_seed: 7, error });
  });

  it('a run that trains (or finds no checkpoint) ends the streak: the next one counts again from one', () => {
    const failed = (n: number) => run(`f${n}`, 'train_failed', 'boom');
    const rows = [
      failed(1),
      failed(2),
      run('x', 'no_eligible_checkpoint'),
      failed(3),
      failed(4),
      run('y', 'trained'),
      failed(5),
      failed(6),
    ];
    expect(readAll(rows, 2).map((event) => event.row_index)).toEqual([1, 4, 7]);
    expect(readAll(rows, 3)).toEqual([]);
  });

  it('a long error is cut to its first 500 characters', () => {
    const long = 'x'.repeat(2_000);
    const [event] = readAll([run('f1', 'train_failed', long)], 1);
    const runs = event?.details.runs as { error: string }[];
    expect(runs[0]?.error.length).toBe(501);
    expect(event?.text.length).toBeLessThan(700);
  });
});
