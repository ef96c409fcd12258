import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchEvalLog, trainLog } from '../../src/activities/support/paths.js';
import { renderStatus } from '../../src/client/render-status.js';
import type { LoopConfig } from '../../src/config/loop-config.js';
import { runIdFor } from '../../src/rules/ids.js';
import { loopWorkflowId, packagingWorkflowId } from '../../src/workflows/ids.js';
import { packagingQuery, resumeSignal, stopSignal } from '../../src/workflows/messages.js';
import type { LoopView } from '../../src/workflows/loop-view.js';
import { rowsOf, stateOf } from '../helpers/loop-checks.js';
import { createLoopHarness, FIXTURE_COMMANDS, type LoopHarness } from '../helpers/loop-harness.js';
import { workflowBundle } from '../helpers/workflow-bundle.js';

// Commands of loop.yaml that do not exist, are not executable, fail, or print megabytes: each
// step is recorded as failed with the command, the loop.yaml key and what to do, and the loop goes on.

describe('commands that cannot run or misbehave', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({
      candidates: [{ name: 'a' }, { name: 'b', overrides: { fixture_quality: 0.7 } }],
    });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  const commandsWith = (changes: Partial<LoopConfig['commands']>): LoopConfig['commands'] => ({
    ...harness.config.commands,
    ...changes,
  });

  /** Start a loop, wait until `done`, stop it, and check its ledger folds to its final view. */
  async function runUntil(loopId: string, settings: Partial<LoopConfig>, done: (view: LoopView) => boolean) {
    await harness.startWith(loopId, { saturation_evals: 1000, ...settings });
    const seen = await harness.waitFor(loopId, done, 90_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    const { rows, state } = await harness.ledger(loopId);
    expect(stateOf(state)).toEqual(stateOf(result.view));
    return { seen, result, rows };
  }

  it('a training command that does not exist or is not executable: every run train_failed naming the command, commands.train and what to do; the rounds go on', async () => {
    const notExecutable = path.join(harness.dir, 'trainer.sh');
    await writeFile(notExecutable, '#!/bin/sh\nexit 0\n', { mode: 0o644 });
    const cases = [
      {
        loopId: 'train-missing',
        train: ['/nonexistent/champion-trainer', '--fast'],
        says: [
          'command not found: /nonexistent/champion-trainer (loop.yaml commands.train)',
          'install it or fix the command in loop.yaml',
        ],
      },
      {
        loopId: 'train-not-on-path',
        train: ['champion-trainer-nowhere'],
        says: [
          'command not found: champion-trainer-nowhere (loop.yaml commands.train): no program named champion-trainer-nowhere on the PATH',
        ],
      },
      {
        loopId: 'train-not-executable',
        train: [notExecutable],
        says: [`command not executable: ${notExecutable} (loop.yaml commands.train)`, 'chmod +x'],
      },
    ];
    let checked = 0;
    await Promise.all(
      cases.map(async ({ loopId, train, says }) => {
        // Every run fails for one reason: the loop says so and pauses (issue 18) before round 3.
        const { rows, seen } = await runUntil(
          loopId,
          { commands: commandsWith({ train }) },
          (view) => view.round >= 3 || Boolean(view.failing?.paused_until),
        );
        expect(seen.failing?.reason).toContain(says[0]);
        const runs = rowsOf(rows, 'run');
        expect(runs.length).toBeGreaterThanOrEqual(2);
        for (const run of runs) {
          expect(run).toMatchObject({ status: 'train_failed', train_rc: null, checkpoints: [] });
          for (const text of says) expect(run.error).toContain(text);
          checked += 1;
        }
        // The step's own log says it too, where an operator looks first.
        expect(await readFile(trainLog(harness.configFor(loopId).state_dir, runs[0]?.run_id ?? ''), 'utf8')).toContain(
          says[0],
        );
      }),
    );
    console.log(`missing or unusable training commands: ${cases.length} faults injected, ${checked} rows checked`);
  });

  it('a training command that exits non-zero is train_failed with its exit code; one that prints megabytes has them in its log, not in memory, and trains', async () => {
    const failing = await runUntil(
      'train-exit-3',
      { commands: commandsWith({ train: ['env', 'FIXTURE_FAIL_TRAIN=fail', ...FIXTURE_COMMANDS.train] }) },
      (view) => view.round >= 2 || Boolean(view.failing?.paused_until),
    );
    const failed = rowsOf(failing.rows, 'run');
    expect(failed.length).toBeGreaterThanOrEqual(2);
    for (const run of failed) {
      expect(run).toMatchObject({ status: 'train_failed', train_rc: 3 });
      expect(run.error).toContain('trainer ended with exit code 3; see ');
      expect(await readFile(trainLog(harness.configFor('train-exit-3').state_dir, run.run_id), 'utf8')).toContain(
        'train: injected failure',
      );
    }

    const loud = await runUntil(
      'train-megabytes',
      { commands: commandsWith({ train: ['env', 'FIXTURE_MEGABYTES=24', ...FIXTURE_COMMANDS.train] }) },
      (view) => view.test_evals >= 2,
    );
    const trained = rowsOf(loud.rows, 'run').filter((run) => run.status === 'trained');
    expect(trained.length).toBeGreaterThanOrEqual(1);
    const size = (await stat(trainLog(harness.configFor('train-megabytes').state_dir, trained[0]?.run_id ?? ''))).size;
    expect(size).toBeGreaterThanOrEqual(24 * 1024 * 1024);
    console.log(
      `failing and loud training commands: 2 faults injected, ${failed.length + trained.length} rows checked (a ${(size / 1048576).toFixed(1)} MiB train log)`,
    );
  });

  it('a split that fails is given up: a split row, status says why and how to resume, nothing tried again until `resume`, which builds it once fixed', async () => {
    const loopId = 'split-given-up';
    const broken = path.join(harness.dir, `${loopId}.broken`);
    await writeFile(broken, 'the data root is being copied\n');
    // Fails (exit 3) while the file is there, then is the fixture's own split command.
    const splitGenerate = [
      'sh',
      '-c',
      `test -e '${broken}' && exit 3; exec "$@"`,
      'sh',
      ...FIXTURE_COMMANDS.split_generate,
    ];
    await harness.startWith(loopId, {
      saturation_evals: 1000,
      commands: commandsWith({ split_generate: splitGenerate }),
    });
    const handle = harness.client.workflow.getHandle(loopWorkflowId(loopId));
    const givenUp = await harness.waitFor(loopId, (view) => view.split_given_up === true, 60_000);
    expect(givenUp.split_error).toContain(
      'buildSplit: split generation failed: loop.yaml commands.split_generate (split generate) ended with exit code 3; see ',
    );
    const status = renderStatus(givenUp);
    expect(status).toContain(`split failed, not tried again: ${givenUp.split_error}`);
    expect(status).toContain(`temporal workflow signal --workflow-id champion-loop/${loopId} --name resume`);
    const failed = rowsOf((await harness.ledger(loopId)).rows, 'split');
    expect(failed).toEqual([
      {
        type: 'split',
        event: 'failed',
        generation: 1,
        split_seed: harness.config.base_seed + 1,
        error: givenUp.split_error,
        time: expect.any(String) as string,
      },
    ]);

    // Given up: after the failure the loop waits for a signal with no timer (before, it slept a minute and tried again).
    const events = (await handle.fetchHistory()).events ?? [];
    const splitEnded = events.findIndex((event) => event.activityTaskFailedEventAttributes);
    expect(splitEnded).toBeGreaterThan(0);
    expect(events.slice(splitEnded).filter((event) => event.timerStartedEventAttributes)).toEqual([]);
    expect(
      events.filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'buildSplit'),
    ).toHaveLength(1);

    await rm(broken);
    await handle.signal(resumeSignal);
    const trained = await harness.waitFor(loopId, (view) => view.split_ready && view.test_evals >= 1, 90_000);
    expect(trained.split_error).toBeNull();
    expect(trained.split_given_up).toBe(false);
    await handle.signal(stopSignal);
    const result = await harness.result(loopId);
    const { rows, state } = await harness.ledger(loopId);
    expect(stateOf(state)).toEqual(stateOf(result.view));
    expect(rowsOf(rows, 'split')).toEqual(failed);
    expect(rowsOf(rows, 'run').some((run) => run.status === 'trained')).toBe(true);
    // The new path (patch split-gives-up) replays: give-up, memo, resume, split, rounds.
    await Worker.runReplayHistory(
      { workflowBundle: await workflowBundle(), replayName: 'split-given-up-replay' },
      await handle.fetchHistory(),
    );
    console.log(`a split given up and resumed: 1 fault injected, ${rows.length} rows checked`);
  });

  it('a loop cancelled while its split is built has not given the split up: started again, it builds it and trains', async () => {
    const loopId = 'split-cancelled';
    const building = path.join(harness.dir, `${loopId}.building`);
    const release = path.join(harness.dir, `${loopId}.release`);
    // Says it is building, then waits for a file the test writes once the loop is cancelled
    // (`temporal workflow cancel`): the cancel always lands while the split is built.
    const splitGenerate = [
      'sh',
      '-c',
      `touch '${building}'; while [ ! -e '${release}' ]; do sleep 0.1; done; exec "$@"`,
      'sh',
      ...FIXTURE_COMMANDS.split_generate,
    ];
    const settings = { saturation_evals: 1000, commands: commandsWith({ split_generate: splitGenerate }) };
    await harness.startWith(loopId, settings);
    await expect
      .poll(
        () =>
          stat(building).then(
            () => true,
            () => false,
          ),
        { timeout: 60_000 },
      )
      .toBe(true);
    const handle = harness.client.workflow.getHandle(loopWorkflowId(loopId));
    await handle.cancel();
    await expect.poll(async () => (await handle.describe()).status.name, { timeout: 30_000 }).toBe('CANCELLED');
    // The cancelled run's split never ended: it was cancelled while being built.
    const cancelled = (await handle.fetchHistory()).events ?? [];
    const splits = cancelled.filter(
      (event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'buildSplit',
    );
    expect(splits).toHaveLength(1);
    const ended = cancelled.filter(
      (event) => Number(event.activityTaskCompletedEventAttributes?.scheduledEventId) === Number(splits[0]?.eventId),
    );
    expect(ended).toEqual([]);
    await writeFile(release, '');
    const again = await harness.startWith(loopId, settings);
    expect(again.kind).toBe('resumed');
    const trained = await harness.waitFor(loopId, (view) => view.split_ready && view.test_evals >= 1, 90_000);
    expect(trained.split_given_up).toBe(false);
    await handle.signal(stopSignal);
    await harness.result(loopId);
    const { rows } = await harness.ledger(loopId);
    expect(rowsOf(rows, 'split')).toEqual([]);
    console.log(`a loop cancelled while its split is built: 1 fault injected, ${rows.length} rows checked`);
  });

  it('an evaluator, split or package command that does not exist: failed evals, a split error the loop waits on, a package launch_failed; each names the command', async () => {
    const evaluatorMissing = runUntil(
      'evaluate-missing',
      { commands: commandsWith({ evaluate: ['/nonexistent/champion-evaluator'] }) },
      (view) => view.round >= 2 && firstRoundRecorded(view),
    );
    const splitMissing = runUntil(
      'split-missing',
      { commands: commandsWith({ split_generate: ['/nonexistent/champion-split'] }) },
      (view) => view.split_error !== null,
    );
    // A split that always takes longer than its limit (issue 23: it was retried every minute with no word why; now given up).
    const splitSlow = runUntil(
      'split-slow',
      {
        commands: commandsWith({ split_generate: ['sh', '-c', 'sleep 600'] }),
        timeouts: { ...harness.config.timeouts, split: '1s' },
      },
      (view) => view.split_error !== null,
    );
    const packageMissing = runUntil(
      'package-missing',
      { commands: commandsWith({ package: ['/nonexistent/champion-packager'] }) },
      (view) => view.champion !== null,
    );

    const evaluated = await evaluatorMissing;
    const runs = rowsOf(evaluated.rows, 'run');
    const evals = rowsOf(evaluated.rows, 'eval');
    expect(runs.every((run) => run.status === 'trained')).toBe(true);
    expect(evals.length).toBeGreaterThanOrEqual(runs.length);
    expect(evals.every((row) => row.status === 'failed')).toBe(true);
    expect(evaluated.result.view.test_evals).toBe(0);
    const log = await readFile(
      batchEvalLog(harness.configFor('evaluate-missing').state_dir, runIdFor(1, 1, 'a'), 'test'),
      'utf8',
    );
    expect(log).toContain('command not found: /nonexistent/champion-evaluator (loop.yaml commands.evaluate)');

    const split = await splitMissing;
    expect(split.seen.split_error).toContain(
      'command not found: /nonexistent/champion-split (loop.yaml commands.split_generate)',
    );
    expect(split.seen.split_error).toContain('install it or fix the command in loop.yaml');
    expect(rowsOf(split.rows, 'run')).toEqual([]);
    const slow = await splitSlow;
    expect(slow.seen.split_error).toBe(
      'buildSplit: no split within 1s (timeouts.split), in both attempts; the split commands were killed ' +
        '(their log: <state_dir>/logs/). Raise timeouts.split in loop.yaml, or make the split faster',
    );
    expect(slow.seen.split_given_up).toBe(true);
    expect(renderStatus(slow.seen)).toContain(`split failed, not tried again: ${slow.seen.split_error}`);
    expect(rowsOf(slow.rows, 'split').map((row) => row.error)).toEqual([slow.seen.split_error]);
    expect(rowsOf(slow.rows, 'run')).toEqual([]);

    await packageMissing;
    const handle = harness.client.workflow.getHandle(packagingWorkflowId('package-missing'));
    await expect
      .poll(
        async () => {
          const view = await handle.query(packagingQuery);
          return { running: view.running, queued: view.queued };
        },
        { timeout: 60_000, interval: 250, message: 'packaging did not settle' },
      )
      .toEqual({ running: null, queued: null });
    const packages = rowsOf((await harness.ledger('package-missing')).rows, 'package');
    expect(packages.length).toBeGreaterThanOrEqual(1);
    for (const row of packages.filter((r) => r.event !== 'dropped')) {
      expect(row.event).toBe('launch_failed');
      expect(row.error).toContain('command not found: /nonexistent/champion-packager (loop.yaml commands.package)');
    }
    console.log(
      `missing evaluator, split and package commands: 3 faults injected, ${evals.length + packages.length + 1} rows checked`,
    );
  });
});

/** No run of round 1 is in flight any more: its (failed) evals are recorded. */
function firstRoundRecorded(view: LoopView): boolean {
  return view.in_flight.every((flight) => !flight.jobId.includes('-r0001-'));
}
