import { readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RunRow } from '../../src/ledger/rows.js';
import { runIdFor } from '../../src/rules/ids.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopSignal } from '../../src/workflows/messages.js';
import { BOUNDED_CANDIDATES } from '../helpers/bounded-loop.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';
import { HeldSteps } from '../helpers/lane-faults.js';
import {
  championLoopCli,
  expectEachRunAndEvalOnce,
  processesMentioning,
  rowsOf,
  temporalCli,
  trainingPausedOnServer,
} from '../helpers/loop-checks.js';

// A training paused the way an operator does it from the Web UI: the Web UI's pause button calls
// PauseActivity on the activity, as `temporal activity pause --workflow-id W --activity-id A`
// does (here with the official Temporal CLI, on a real dev server and a real trainer that writes a
// checkpoint every epoch). Its trainer's process group gets SIGTERM, the lane's one slot takes the
// next job, `status` shows it paused, nothing records it failed; `temporal activity unpause`
// sends it again and it resumes from its newest checkpoint (loop.yaml `resume_flag`).
/** The run paused: slow (1 s per epoch) and long enough to be caught in the middle of its training. */
const TARGET = runIdFor(1, 1, 'a');
const EPOCHS = 16;

describe('a training run paused and unpaused with `temporal activity pause|unpause` (the Web UI calls)', () => {
  let loop: LoopHarness;
  /** While it is missing, every training waits after its last epoch (fixture_wait_for) and holds its slot. */
  let release = '';

  beforeAll(async () => {
    // The trainers are this process's children: they read the fault modes from its environment.
    process.env.FIXTURE_FAIL_TRAIN = `slow:${TARGET}`;
    const releaseFile = path.join(tmpdir(), `pause-temporal-cli-${process.pid}`);
    release = releaseFile;
    await writeFile(release, '');
    loop = await createLoopHarness({
      candidates: BOUNDED_CANDIDATES.map((c) => ({
        ...c,
        overrides: {
          ...c.overrides,
          fixture_wait_for: releaseFile,
          ...(c.name === 'a' ? { fixture_epochs: EPOCHS } : {}),
        },
      })),
      // One lane of one slot: while the paused run holds it nothing else runs; once its attempt
      // has ended on the lane, the next job queued there starts.
      lanes: 1,
      loop: {
        parallel: 2,
        saturation_evals: 1000,
        // A heartbeat every second or so: the server tells the lane of the pause at the next one.
        // The kill grace is long: a trainer gone before it ended with the SIGTERM, not a SIGKILL.
        timeouts: { heartbeat: '3s', schedule_to_start: '10m' },
        lanes: [{ host: 'test', device: 0, kill_grace: '5m' }],
      },
    });
  }, 120_000);

  afterAll(async () => {
    delete process.env.FIXTURE_FAIL_TRAIN;
    await loop?.dispose();
    await rm(release, { force: true });
  });

  it('pause: its trainer gets SIGTERM, its slot runs the next job, status shows it paused, nothing failed; unpause: it resumes from its checkpoint and ends trained', async () => {
    const loopId = 'pause-temporal-cli';
    const base = loop.configFor(loopId);
    const runDir = path.join(base.runs_root, TARGET);
    const logs = path.join(base.state_dir, 'logs');
    const termSeen = path.join(base.state_dir, '..', 'trainers-sigterm');
    // The trainer behind a shell that writes down a SIGTERM its process group gets (SIGKILL cannot be).
    const recordingTerm = [
      'sh',
      '-c',
      `trap 'echo "SIGTERM $*" >> "${termSeen}"' TERM; "$@" & child=$!; while :; do wait $child; rc=$?; kill -0 $child 2>/dev/null || exit $rc; done`,
      'sh',
    ];
    // The loop counts two slots on the lane, whose worker has one: a second job waits in its queue.
    const [own] = base.lanes;
    if (!own) throw new Error('the harness has no lane');
    const lane = { ...own, slots: 2 };
    const settings = {
      resume_flag: '--resume-from',
      lanes: [lane],
      commands: { ...base.commands, train: [...recordingTerm, ...FIXTURE_COMMANDS.train] },
    };
    const trainers = async (other = false) =>
      (await processesMentioning(base.runs_root)).filter(
        (p) =>
          p.cmdline.startsWith(process.execPath) &&
          p.cmdline.includes('train.mjs') &&
          p.cmdline.includes(`--run-id ${TARGET}`) !== other,
      );
    const temporal = async (...args: string[]) => {
      const result = await temporalCli(loop.server, args);
      expect(result.exitCode, `temporal ${args.join(' ')}: ${result.stderr}`).toBe(0);
      return result;
    };
    const seen: Record<string, unknown> = {};
    let childId = '';
    const started = await loop.startWith(loopId, settings);
    expect(started.kind).toBe('started');
    await vi.waitFor(() => readFile(path.join(runDir, 'validation-epoch-0002.json')), {
      timeout: 90_000,
      interval: 100,
    });
    // From now on every training holds its slot after its last epoch, until the file is back.
    await rm(release);
    // The trainer is held (SIGSTOP) until the pause is sent, so it cannot end first on a slow box.
    const held = new HeldSteps();
    const running = await trainers();
    for (const { pid } of running) held.hold(pid);
    expect(running.length, 'the trainer runs').toBeGreaterThan(0);
    expect(await trainers(true), 'the lane trains nothing else').toEqual([]);
    childId = (await loop.view(loopId)).in_flight.find((job) => job.jobId === TARGET)?.childId ?? '';
    expect(childId, `${TARGET} in flight`).not.toBe('');
    const child = loop.client.workflow.getHandle(childId);
    const [training] = (await child.describe()).raw.pendingActivities ?? [];
    expect(training?.activityType?.name).toBe('trainRun');
    const activityId = training?.activityId ?? '';
    await temporal(
      'activity',
      'pause',
      '--workflow-id',
      childId,
      '--activity-id',
      activityId,
      '--reason',
      'from the Web UI',
    ).finally(() => held.release());

    // Its process group got SIGTERM at the training's next heartbeat, and it is gone.
    await vi.waitFor(async () => expect(await trainers()).toEqual([]), { timeout: 60_000, interval: 100 });
    for (const { pid } of running) expect(() => process.kill(pid, 0)).toThrow();
    expect(await readFile(termSeen, 'utf8')).toContain(`--run-id ${TARGET}`);
    // Held by the server: its attempt ended on the lane (PAUSED, not PAUSE_REQUESTED).
    seen.attemptWhilePaused = await trainingPausedOnServer(child);
    // Its slot was freed: the lane's one slot trains the job queued behind it (after an evaluation
    // that was queued first, if any), and that training holds it, waiting for the release file.
    const next = await vi.waitFor(
      async () => {
        const [other] = await trainers(true);
        expect(other, 'another training on the lane').toBeDefined();
        return other;
      },
      { timeout: 60_000, interval: 100 },
    );
    seen.next = /--run-id (\S+)/.exec(next?.cmdline ?? '')?.[1];
    // `status` shows it paused, by the Web UI's reason; the run still in flight, nothing failed.
    const status = await championLoopCli(loop.server, ['status', loopId]);
    expect(status.stdout).toMatch(
      new RegExp(`^paused: ${TARGET} on \\S+: its training is paused since \\S+ by .* \\(from the Web UI\\);`, 'm'),
    );
    const json = JSON.parse((await championLoopCli(loop.server, ['status', loopId, '--json'])).stdout) as {
      paused_trainings?: unknown[];
      in_flight: { jobId: string }[];
    };
    expect(json.paused_trainings).toEqual([expect.objectContaining({ run_id: TARGET, reason: 'from the Web UI' })]);
    expect(json.in_flight.map((job) => job.jobId)).toContain(TARGET);
    const whilePaused = (await child.fetchHistory()).events ?? [];
    expect(whilePaused.filter((event) => event.activityTaskFailedEventAttributes)).toEqual([]);
    seen.trainedBeforePause = (await readFile(path.join(logs, `${TARGET}.train.log`), 'utf8')).match(
      /^epoch \d+\//gm,
    )?.length;

    await temporal('activity', 'unpause', '--workflow-id', childId, '--activity-id', activityId);
    await vi.waitFor(
      async () => {
        const [activity] = (await child.describe()).raw.pendingActivities ?? [];
        expect(activity?.paused ?? false).toBe(false);
      },
      { timeout: 30_000, interval: 200 },
    );
    // The job on its slot may end now; the unpaused training was queued before the loop's next.
    await writeFile(release, '');
    // Once the paused run is done, a graceful stop: the jobs in flight end, then the loop.
    await loop.waitFor(
      loopId,
      (view) => view.round >= 2 && !view.in_flight.some((job) => job.jobId === TARGET),
      180_000,
    );
    await loop.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    await loop.result(loopId);
    const disturbed = await loop.ledger(loopId);
    const target = rowsOf(disturbed.rows, 'run').find(
      (row): row is RunRow => row.run_id === TARGET && row.status !== 'ensemble',
    );
    expect(target?.status, target?.error ?? '').toBe('trained');
    expect(target?.lost_lanes).toBeUndefined();
    expectEachRunAndEvalOnce(disturbed.rows, loopId);
    expect(rowsOf(disturbed.rows, 'run').filter((row) => row.status === 'train_failed')).toEqual([]);
    // Nothing in the training's child failed: the pause ended its attempt on the lane, not the activity.
    const events = (await loop.client.workflow.getHandle(childId).fetchHistory()).events ?? [];
    expect(events.filter((event) => event.activityTaskFailedEventAttributes)).toEqual([]);
    const log = await readFile(path.join(logs, `${TARGET}.train.log`), 'utf8');
    const resumed = /^--- \S+ train: resuming \S+ from epoch (\d+) /m.exec(log);
    expect(resumed, log).not.toBeNull();
    // Every epoch trained once: up to the checkpoint before the pause, the rest after it.
    const epochs = [...log.matchAll(/^epoch (\d+)\/(\d+) /gm)].map((match) => Number(match[1]));
    expect(epochs).toEqual(Array.from({ length: EPOCHS }, (_, index) => index + 1));
    console.log(
      `temporal activity pause: attempt ${String(seen.attemptWhilePaused)} while paused, ${String(seen.next)} trained on its slot meanwhile; ${String(seen.trainedBeforePause)} epochs before the pause, resumed from epoch ${resumed?.[1]}`,
    );
  });
});
