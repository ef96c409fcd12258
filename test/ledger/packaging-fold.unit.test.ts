import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  finishPackage,
  idlePackaging,
  MAX_PACKAGED,
  requestPackage,
  stopPackagingAtOnce,
  type PackagingState,
} from '../../src/ledger/packaging-fold.js';
import type { PackageRow } from '../../src/ledger/rows.js';

type Champion = Parameters<typeof requestPackage>[1];
type Outcome = Parameters<typeof finishPackage>[1];

const champion = (index: number): Champion => ({
  generation: 1 + Math.floor(index / 10),
  run_id: `champ-g001-r0001-c${index}`,
  epoch: index,
  checkpoint_name: `checkpoint-${index}.pt`,
  checkpoint: `runs/c${index}/checkpoint-${index}.pt`,
  config_path: `configs/c${index}.yaml`,
  eval_json: `evals/c${index}.test.json`,
  requested: `2026-01-05T08:00:${String(index % 60).padStart(2, '0')}Z`,
});

const launched = (exitCode: number | null): Outcome => ({
  launched: true,
  command: ['package'],
  pid: 42,
  log: 'package.log',
  started: '2026-01-05T09:00:00Z',
  exitCode,
  finished: '2026-01-05T09:01:00Z',
});
const notLaunched: Outcome = { launched: false, error: 'no such command', time: '2026-01-05T09:00:00Z' };

describe('the packaging fold', () => {
  it('runs the first champion at once, queues the next, and drops a queued one a newer replaces', () => {
    const [a, b, c] = [champion(1), champion(2), champion(3)];
    const first = requestPackage(idlePackaging, a);
    expect(first).toEqual({ state: { running: a, queued: null }, rows: [] });
    const second = requestPackage(first.state, b);
    expect(second).toEqual({ state: { running: a, queued: b }, rows: [] });
    const third = requestPackage(second.state, c);
    const dropped: PackageRow = {
      type: 'package',
      event: 'dropped',
      generation: b.generation,
      run_id: b.run_id,
      epoch: b.epoch,
      checkpoint_name: b.checkpoint_name,
      time: c.requested,
    };
    // Held until the running command's own rows: its launched row is earlier than the drop.
    expect(third).toEqual({ state: { running: a, queued: c, dropped: [dropped] }, rows: [] });
    const ran = finishPackage(third.state, {
      ...(launched(0) as Extract<Outcome, { launched: true }>),
      started: '2026-01-05T08:00:02.500Z',
      finished: '2026-01-05T08:00:09Z',
    });
    expect(ran.rows.map((row) => `${row.event} ${row.time}`)).toEqual([
      'launched 2026-01-05T08:00:02.500Z',
      `dropped ${c.requested}`,
      'finished 2026-01-05T08:00:09Z',
    ]);
    expect(ran.state.dropped).toBeUndefined();
    // A stop at once records the drops held, in time order with its own rows.
    const stopped = stopPackagingAtOnce(requestPackage(third.state, champion(4)).state, '2026-01-05T10:00:00Z');
    expect(stopped.rows.map((row) => row.event)).toEqual(['dropped', 'dropped', 'launch_failed', 'launch_failed']);
  });

  it('records a launched command as launched and finished, then runs the queued one', () => {
    const [a, b] = [champion(1), champion(2)];
    const state: PackagingState = { running: a, queued: b };
    const step = finishPackage(state, launched(0));
    // Exit code 0: its checkpoint is packaged, never packaged again (packaged-once).
    expect(step.state).toEqual({ running: b, queued: null, packaged: [`${a.run_id}/${a.checkpoint_name}`] });
    expect(step.rows.map((row) => [row.event, row.run_id, row.time])).toEqual([
      ['launched', a.run_id, '2026-01-05T09:00:00Z'],
      ['finished', a.run_id, '2026-01-05T09:01:00Z'],
    ]);
    expect(step.rows[0]).toMatchObject({ command: ['package'], pid: 42, log: 'package.log' });
    expect(step.rows[1]).toMatchObject({ exit_code: 0 });
  });

  it('records a command that never launched as launch_failed with its error', () => {
    const step = finishPackage({ running: champion(1), queued: null }, notLaunched);
    expect(step.state).toEqual(idlePackaging);
    expect(step.rows).toEqual([
      expect.objectContaining({ event: 'launch_failed', error: 'no such command', time: '2026-01-05T09:00:00Z' }),
    ]);
  });

  it('takes the same champion twice as one request, and an outcome with nothing running as nothing', () => {
    const a = champion(1);
    const once = requestPackage(idlePackaging, a).state;
    expect(requestPackage(once, { ...a, requested: 'later' })).toEqual({ state: once, rows: [] });
    const queued = requestPackage(once, champion(2)).state;
    expect(requestPackage(queued, champion(2))).toEqual({ state: queued, rows: [] });
    expect(finishPackage(idlePackaging, launched(0))).toEqual({ state: idlePackaging, rows: [] });
  });

  it('records a stop at once as launch_failed for the running and the queued champion, neither counting as packaged', () => {
    const [a, b] = [champion(1), champion(2)];
    const step = stopPackagingAtOnce({ running: a, queued: b }, '2026-01-05T10:00:00Z');
    expect(step.state).toEqual(idlePackaging);
    expect(step.rows).toEqual([
      {
        type: 'package',
        event: 'launch_failed',
        generation: a.generation,
        run_id: a.run_id,
        epoch: a.epoch,
        checkpoint_name: a.checkpoint_name,
        time: '2026-01-05T10:00:00Z',
        error: 'stopped at once (stop --now): the package command was cancelled and killed before it finished',
      },
      {
        type: 'package',
        event: 'launch_failed',
        generation: b.generation,
        run_id: b.run_id,
        epoch: b.epoch,
        checkpoint_name: b.checkpoint_name,
        time: '2026-01-05T10:00:00Z',
        error: 'stopped at once (stop --now) while queued: its package command never ran',
      },
    ]);
    expect(stopPackagingAtOnce({ running: a, queued: null }, 'now').rows.map((row) => row.run_id)).toEqual([a.run_id]);
    expect(stopPackagingAtOnce(idlePackaging, 'now')).toEqual({ state: idlePackaging, rows: [] });
  });

  it('over any interleaving: one at a time, and every champion ends up packaged, dropped, running or queued exactly once', () => {
    const steps = fc.array(
      fc.oneof(
        fc.constant('request' as const),
        fc.constant('finish' as const),
        fc.constant('repeat' as const),
        fc.constant('stop' as const),
      ),
      { maxLength: 40 },
    );
    fc.assert(
      fc.property(steps, fc.boolean(), (list, launches) => {
        let state = idlePackaging;
        const rows: PackageRow[] = [];
        let requested = 0;
        for (const step of list) {
          let next;
          if (step === 'request') next = requestPackage(state, champion((requested += 1)));
          else if (step === 'repeat') {
            // A retried delivery of the running or queued champion changes nothing.
            const again = state.queued ?? state.running;
            next = again === null ? { state, rows: [] } : requestPackage(state, { ...again, requested: 'retried' });
            expect(next).toEqual({ state, rows: [] });
          } else if (step === 'stop') next = stopPackagingAtOnce(state, 'stopped');
          else next = finishPackage(state, launches ? launched(1) : notLaunched);
          state = next.state;
          rows.push(...next.rows);
          if (state.running === null) expect(state.queued).toBeNull();
        }
        const ended = rows.filter((row) => row.event !== 'launched').map((row) => row.run_id);
        const waiting = [
          ...[state.running, state.queued].flatMap((entry) => (entry ? [entry.run_id] : [])),
          // Drops held until the running command's rows.
          ...(state.dropped ?? []).map((row) => row.run_id),
        ];
        const all = Array.from({ length: requested }, (_, index) => champion(index + 1).run_id);
        expect([...ended, ...waiting].sort()).toEqual(all.sort());
        // A launched row's next row of the same champion is its finished row (drops held may come between).
        for (const [at, row] of rows.entries())
          if (row.event === 'launched')
            expect(rows.slice(at + 1).find((other) => other.run_id === row.run_id)?.event).toBe('finished');
      }),
    );
  });

  it('never packages again a checkpoint whose package command exited 0, however it is asked again', () => {
    const [a, b] = [champion(1), champion(2)];
    const done = finishPackage(requestPackage(idlePackaging, a).state, launched(0)).state;
    expect(done).toEqual({ running: null, queued: null, packaged: [`${a.run_id}/${a.checkpoint_name}`] });
    // Asked again (a repeated champion, a resumed loop): nothing runs, nothing is recorded.
    expect(requestPackage(done, { ...a, requested: 'later' })).toEqual({ state: done, rows: [] });
    // Asked again while another runs: not queued either.
    const running = requestPackage(done, b).state;
    expect(requestPackage(running, { ...a, requested: 'later' })).toEqual({ state: running, rows: [] });
    // A command that failed, or never launched, leaves its checkpoint to be packaged again.
    const failed = finishPackage(requestPackage(idlePackaging, b).state, launched(1)).state;
    expect(requestPackage(failed, b).state.running).toEqual(b);
    const lost = finishPackage(requestPackage(idlePackaging, b).state, notLaunched).state;
    expect(requestPackage(lost, b).state.running).toEqual(b);
    // Code before the change (replaying its runs) packaged it again, and remembered nothing.
    const old = finishPackage(requestPackage(idlePackaging, a, false).state, launched(0), false).state;
    expect(old).toEqual(idlePackaging);
    expect(requestPackage(old, a, false).state.running).toEqual(a);
  });

  it('remembers the newest MAX_PACKAGED packaged checkpoints', () => {
    let state: PackagingState = idlePackaging;
    for (let index = 1; index <= MAX_PACKAGED + 3; index += 1)
      state = finishPackage(requestPackage(state, champion(index)).state, launched(0)).state;
    expect(state.packaged).toHaveLength(MAX_PACKAGED);
    expect(state.packaged?.at(-1)).toBe(`${champion(MAX_PACKAGED + 3).run_id}/checkpoint-${MAX_PACKAGED + 3}.pt`);
    expect(requestPackage(state, champion(MAX_PACKAGED + 3)).rows).toEqual([]);
    expect(requestPackage(state, champion(MAX_PACKAGED + 3)).state).toBe(state);
  });
});
