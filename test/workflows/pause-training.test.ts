import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import proto from '@temporalio/proto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunRow } from '../../src/ledger/rows.js';
import { runIdFor } from '../../src/rules/ids.js';
import { recordedPatch } from '../../src/ledger/history/patch-markers.js';
import { PAUSED_ATTEMPTS } from '../../src/workflows/patches.js';
import { BOUNDED_CANDIDATES, hangAfterRound, runBounded } from '../helpers/bounded-loop.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';
import { HeldSteps } from '../helpers/lane-faults.js';
import {
  championLoopCli,
  expectEachRunAndEvalOnce,
  processesMentioning,
  rowsOf,
  trainingPausedOnServer,
} from '../helpers/loop-checks.js';

// A training paused the way Temporal offers it (PauseActivity, here through `champion-loop pause`)
// on a real dev server: its trainer's process group is stopped, the run is neither failed nor
// retried while it is paused, `status` says so, and unpaused it resumes from its newest epoch.
const { PendingActivityState } = proto.temporal.api.enums.v1;
const ROUNDS = 2;
/** The run paused: slow (1 s per epoch) and long enough to be caught in the middle of its training. */
const TARGET = runIdFor(1, 1, 'a');
const EPOCHS = 16;

describe('a training run paused and unpaused', () => {
  let loop: LoopHarness;

  beforeAll(async () => {
    // The trainers are this process's children: they read the fault modes from its environment.
    process.env.FIXTURE_FAIL_TRAIN = [...hangAfterRound(ROUNDS), `slow:${TARGET}`].join(',');
    loop = await createLoopHarness({
      candidates: BOUNDED_CANDIDATES.map((c) =>
        c.name === 'a' ? { ...c, overrides: { ...c.overrides, fixture_epochs: EPOCHS } } : c,
      ),
      lanes: 2,
      // A heartbeat every second or so: the server tells the lane of the pause at the next one. The
      // lanes' kill grace outlasts what the second test does while a stopped trainer's launcher
      // lingers (it lets the launcher go itself).
      loop: {
        parallel: 2,
        saturation_evals: 1000,
        timeouts: { heartbeat: '3s', schedule_to_start: '20s' },
        lanes: [0, 1].map((device) => ({ host: 'test', device, kill_grace: '5m' })),
      },
    });
  }, 120_000);

  afterAll(async () => {
    delete process.env.FIXTURE_FAIL_TRAIN;
    await loop?.dispose();
  });

  it('`pause` stops its trainer and holds it, the run neither failed nor retried and shown paused; `unpause` resumes it from its checkpoint and it ends trained, every row once', async () => {
    const loopId = 'pause-training';
    const config = loop.configFor(loopId);
    const runDir = path.join(config.runs_root, TARGET);
    const cli = (...args: string[]) => championLoopCli(loop.server, args);
    const trainers = async () =>
      (await processesMentioning(config.runs_root)).filter(
        (p) => p.cmdline.startsWith(process.execPath) && p.cmdline.includes(`--run-id ${TARGET}`),
      );
    const seen: Record<string, unknown> = {};
    const disturbed = await runBounded(loop, loopId, {
      rounds: ROUNDS,
      settings: { resume_flag: '--resume-from' },
      during: async () => {
        await vi.waitFor(() => readFile(path.join(runDir, 'validation-epoch-0002.json')), {
          timeout: 60_000,
          interval: 100,
        });
        // The trainer is held (SIGSTOP) until the pause is sent, so it cannot end first on a slow box.
        const held = new HeldSteps();
        const running = await trainers();
        for (const { pid } of running) held.hold(pid);
        expect(running.length, 'the trainer runs').toBeGreaterThan(0);
        const childId = (await loop.view(loopId)).in_flight.find((job) => job.jobId === TARGET)?.childId;
        const pausedAt = Date.now();
        const pause = await cli('pause', loopId, TARGET, '--reason', 'maintenance').finally(() => held.release());
        expect(pause.exitCode, pause.stderr).toBe(0);
        expect(pause.stdout).toContain(`run ${TARGET}: training paused`);
        // Its whole process group stopped at the training's next heartbeat.
        await vi.waitFor(async () => expect(await trainers()).toEqual([]), { timeout: 30_000, interval: 100 });
        seen.groupGoneMs = Date.now() - pausedAt;
        for (const { pid } of running) expect(() => process.kill(pid, 0)).toThrow();
        // Held by the server: pending, paused, not running; the run still in flight, no row of it.
        expect(childId, `${TARGET} in flight when paused`).toBeDefined();
        const child = loop.client.workflow.getHandle(childId ?? '');
        // Its attempt ended on the lane, whose slot is free again.
        seen.attemptWhilePaused = await trainingPausedOnServer(child);
        // An unknown loop, a run not in flight: each a clear error.
        const noLoop = await cli('pause', 'no-such-loop', TARGET);
        expect(noLoop.exitCode).toBe(1);
        expect(noLoop.stderr).toContain("no loop 'no-such-loop'");
        const notInFlight = await cli('pause', loopId, runIdFor(1, 9, 'a'));
        expect(notInFlight.exitCode).toBe(1);
        expect(notInFlight.stderr).toContain('is not in flight');
        const again = await cli('pause', loopId, TARGET);
        expect(again.stdout).toContain('paused already');
        // A while paused: nothing fails it, nothing sends it again.
        await new Promise((resolve) => setTimeout(resolve, 4_000));
        expect(await trainers()).toEqual([]);
        const view = await loop.view(loopId);
        expect(view.in_flight.map((job) => job.jobId)).toContain(TARGET);
        const status = await cli('status', loopId);
        expect(status.stdout).toMatch(
          new RegExp(
            `^paused: ${TARGET} on \\S+: its training is paused since \\S+ by .* \\(maintenance\\); 'champion-loop unpause ${loopId} ${TARGET}' goes on$`,
            'm',
          ),
        );
        const json = JSON.parse((await cli('status', loopId, '--json')).stdout) as { paused_trainings?: unknown[] };
        expect(json.paused_trainings).toEqual([expect.objectContaining({ run_id: TARGET, reason: 'maintenance' })]);
        seen.trainedBeforePause = (
          await readFile(path.join(config.state_dir, 'logs', `${TARGET}.train.log`), 'utf8')
        ).match(/^epoch \d+\//gm)?.length;

        const unpause = await cli('unpause', loopId, TARGET);
        expect(unpause.exitCode, unpause.stderr).toBe(0);
        expect(unpause.stdout).toContain('training unpaused');
        // Training again: nothing to unpause, and status shows no pause.
        const notPaused = await cli('unpause', loopId, TARGET);
        expect(notPaused.exitCode, notPaused.stderr).toBe(1);
        expect(notPaused.stderr).toContain('is not paused');
        const status2 = await cli('status', loopId);
        expect(status2.stdout).not.toContain('paused: ');
      },
    });
    const target = rowsOf(disturbed.rows, 'run').find(
      (row): row is RunRow => row.run_id === TARGET && row.status !== 'ensemble',
    );
    expect(target?.status).toBe('trained');
    expect(target?.lost_lanes).toBeUndefined();
    expectEachRunAndEvalOnce(disturbed.rows, loopId);
    const log = await readFile(path.join(config.state_dir, 'logs', `${TARGET}.train.log`), 'utf8');
    const resumed = /^--- \S+ train: resuming \S+ from epoch (\d+) /m.exec(log);
    expect(resumed, log).not.toBeNull();
    // Every epoch trained once: up to the checkpoint before the pause, the rest after it.
    const epochs = [...log.matchAll(/^epoch (\d+)\/(\d+) /gm)].map((match) => Number(match[1]));
    expect(epochs).toEqual(Array.from({ length: EPOCHS }, (_, index) => index + 1));
    expect(log.match(/^--- \S+ train: \[/gm)).toHaveLength(2);
    console.log(
      `pause: trainer group gone ${String(seen.groupGoneMs)} ms after 'champion-loop pause'; attempt ${String(seen.attemptWhilePaused)} while paused; ${String(seen.trainedBeforePause)} epochs before the pause, resumed from epoch ${resumed?.[1]}`,
    );
  });
  it('unpaused before its lane stopped it (the trainer still in its kill grace): the attempt reaches the workflow as ActivityPause and is sent again at no cost, with retries.train 1 the run ends trained', async () => {
    const loopId = 'pause-unpause-race';
    const base = loop.configFor(loopId);
    const runDir = path.join(base.runs_root, TARGET);
    const cli = (...args: string[]) => championLoopCli(loop.server, args);
    const trainer = async () =>
      (await processesMentioning(base.runs_root)).filter(
        (p) => p.cmdline.startsWith(process.execPath) && p.cmdline.includes(`--run-id ${TARGET}`),
      );
    // A stack whose launcher outlives its trainer's SIGTERM (it ignores it and lingers) until the
    // test lets it go (inside the lanes' 5 m kill grace): the attempt stays on its lane meanwhile.
    const letGo = path.join(base.state_dir, '..', 'let-launcher-go');
    const lingering = [
      'sh',
      '-c',
      `trap "" TERM; "$@"; rc=$?; [ $rc -ge 128 ] && while [ ! -e '${letGo}' ]; do sleep 0.1; done; exit $rc`,
      'sh',
    ];
    const settings = {
      resume_flag: '--resume-from',
      retries: { ...base.retries, train: 1 },
      commands: { ...base.commands, train: [...lingering, ...FIXTURE_COMMANDS.train] },
    };
    let childId = '';
    const disturbed = await runBounded(loop, loopId, {
      rounds: ROUNDS,
      settings,
      during: async () => {
        await vi.waitFor(() => readFile(path.join(runDir, 'validation-epoch-0002.json')), {
          timeout: 60_000,
          interval: 100,
        });
        childId = (await loop.view(loopId)).in_flight.find((job) => job.jobId === TARGET)!.childId;
        const pause = await cli('pause', loopId, TARGET);
        expect(pause.exitCode, pause.stderr).toBe(0);
        // The lane knows: its trainer got SIGTERM; its launcher lingers, so the attempt goes on.
        await vi.waitFor(async () => expect(await trainer()).toEqual([]), { timeout: 30_000, interval: 100 });
        const [activity] = (await loop.client.workflow.getHandle(childId).describe()).raw.pendingActivities ?? [];
        expect(activity?.state).toBe(PendingActivityState.PENDING_ACTIVITY_STATE_PAUSE_REQUESTED);
        const status = await cli('status', loopId);
        expect(status.stdout).toContain(`paused: ${TARGET} on `);
        expect(status.stdout).toContain('its training is pausing');
        const unpause = await cli('unpause', loopId, TARGET);
        expect(unpause.exitCode, unpause.stderr).toBe(0);
        await writeFile(letGo, '');
      },
    });
    const target = rowsOf(disturbed.rows, 'run').find(
      (row): row is RunRow => row.run_id === TARGET && row.status !== 'ensemble',
    );
    expect(target?.status, target?.error ?? '').toBe('trained');
    expectEachRunAndEvalOnce(disturbed.rows, loopId);
    // What the workflow saw: the paused attempt failed with the SDK's ActivityPause, then a second trainRun.
    const events = (await loop.client.workflow.getHandle(childId).fetchHistory()).events ?? [];
    const failures = events
      .map((event) => event.activityTaskFailedEventAttributes?.failure)
      .filter((cause) => cause !== undefined);
    expect(failures.map((failure) => failure?.applicationFailureInfo?.type)).toEqual(['ActivityPause']);
    // Sent again on the patched path (patch paused-attempts, recorded as a marker).
    expect(recordedPatch(events, PAUSED_ATTEMPTS)).toBe(true);
    const trainings = events.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'trainRun',
    );
    expect(trainings).toHaveLength(2);
    const log = await readFile(path.join(base.state_dir, 'logs', `${TARGET}.train.log`), 'utf8');
    expect(log).toMatch(/^--- \S+ train: resuming \S+ from epoch \d+ /m);
    console.log(`pause then unpause within the kill grace: ${failures[0]?.message ?? ''}; trained again, resumed`);
  });
});
