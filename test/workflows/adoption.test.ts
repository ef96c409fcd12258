// Children report by their completion to the generation run that started them. A run that waits
// for a child it did not start adopts it: a child still running then reports by signal, and one
// that closed before it could be adopted is settled from its outcome. A real dev server, real
// workers and the fixture stack; `temporal workflow terminate` ends the run that started the child.
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runHistories } from '../../src/ledger-copy/history-runs.js';
import type { HistoryEvent } from '../../src/ledger/history/index.js';
import { CHILD_OUTCOME } from '../../src/activities/child-outcome.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { adoptSignal, runReportedSignal, stopSignal } from '../../src/workflows/messages.js';
import { copyCaughtUp, expectCopyMatches } from '../helpers/bounded-loop.js';
import { expectEachRunAndEvalOnce, rowsOf, stateOf, temporalCli } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

describe('a child the run that started it no longer waits for', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({ candidates: [{ name: 'slow' }], lanes: 1 });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  /** The file a loop's trainings wait for (fixture_wait_for): the test decides when its run ends. */
  const releaseOf = (loopId: string) => path.join(harness.dir, `${loopId}.release`);

  /** A loop's settings: its own candidates file, whose `slow` trains once its release file is there. */
  async function settingsOf(loopId: string) {
    const candidates = path.join(harness.dir, `${loopId}.candidates.yaml`);
    await harness.writeCandidates([{ name: 'slow', overrides: { fixture_wait_for: releaseOf(loopId) } }], candidates);
    return { saturation_evals: 1000, candidates };
  }

  /** Start a loop, terminate its generation while its first run trains; the child id of that run. */
  async function terminateWhileTraining(loopId: string): Promise<string> {
    expect((await harness.startWith(loopId, await settingsOf(loopId))).kind).toBe('started');
    const training = await harness.waitFor(loopId, (view) => view.in_flight.length > 0, 60_000);
    const childId = training.in_flight[0]?.childId ?? '';
    const ended = await temporalCli(harness.server, [
      'workflow',
      'terminate',
      '--workflow-id',
      loopWorkflowId(loopId),
      '--reason',
      'operator',
    ]);
    expect(ended.exitCode, ended.stderr).toBe(0);
    return childId;
  }

  /** Started again: the run is counted once, then the loop stops; the export, the copy and the workflow agree. */
  async function resumeAndCheck(
    loopId: string,
    childId: string,
    resumed: () => Promise<void> = async () => {},
  ): Promise<HistoryEvent[]> {
    expect((await harness.startWith(loopId, await settingsOf(loopId))).kind).toBe('resumed');
    await resumed();
    await harness.waitFor(loopId, (view) => view.in_flight.every((flight) => flight.childId !== childId), 60_000);
    await harness.client.workflow.getHandle(loopWorkflowId(loopId)).signal(stopSignal);
    const result = await harness.result(loopId);
    // Caught up first: packaging may still be recording a champion the export should hold too.
    const copy = await copyCaughtUp(harness, loopId, harness.configFor(loopId).state_dir);
    const { rows, state } = await harness.ledger(loopId);
    expectEachRunAndEvalOnce(rows, loopId);
    expect(rowsOf(rows, 'run').map((row) => row.run_id)).toContain('champ-g001-r0001-slow');
    expect(stateOf(state)).toEqual(stateOf(result.view));
    expectCopyMatches(copy, rows, loopId);
    const chain = await runHistories(harness.client, loopWorkflowId(loopId));
    return chain[chain.length - 1] ?? [];
  }

  it('still running when adopted: it reports by signal to the run that adopted it', async () => {
    const childId = await terminateWhileTraining('running');
    // The child trains until the resumed run has sent it the adopt signal.
    const resumed = await resumeAndCheck('running', childId, async () => {
      await expect
        .poll(
          async () => {
            const { events } = await harness.client.workflow.getHandle(loopWorkflowId('running')).fetchHistory();
            return (events ?? []).some(
              (event) =>
                event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === adoptSignal.name &&
                event.signalExternalWorkflowExecutionInitiatedEventAttributes.workflowExecution?.workflowId === childId,
            );
          },
          { timeout: 60_000, interval: 250, message: 'the resumed run sent the child the adopt signal' },
        )
        .toBe(true);
      await writeFile(releaseOf('running'), '');
    });
    expect(
      resumed.some(
        (event) =>
          event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === adoptSignal.name &&
          event.signalExternalWorkflowExecutionInitiatedEventAttributes.workflowExecution?.workflowId === childId,
      ),
      'the resumed run adopted the child',
    ).toBe(true);
    expect(
      resumed.some(
        (event) =>
          event.workflowExecutionSignaledEventAttributes?.signalName === runReportedSignal.name &&
          event.workflowExecutionSignaledEventAttributes.externalWorkflowExecution?.workflowId === childId,
      ),
      'the adopted child reported by signal',
    ).toBe(true);
  }, 120_000);

  it('closed before it could be adopted: its report is read from its outcome', async () => {
    const childId = await terminateWhileTraining('closed');
    await writeFile(releaseOf('closed'), '');
    // Its completion went to the terminated run, which no longer records anything.
    await expect
      .poll(async () => (await harness.client.workflow.getHandle(childId).describe()).status.name, {
        timeout: 60_000,
        interval: 500,
      })
      .toBe('COMPLETED');
    const resumed = await resumeAndCheck('closed', childId);
    const scheduled = new Set(
      resumed
        .filter((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === CHILD_OUTCOME)
        .map((event) => String(event.eventId)),
    );
    expect(
      resumed.some((event) => event.signalExternalWorkflowExecutionFailedEventAttributes),
      'the adopt signal found the child closed',
    ).toBe(true);
    expect(
      resumed.some((event) =>
        scheduled.has(String(event.activityTaskCompletedEventAttributes?.scheduledEventId ?? '')),
      ),
      'the resumed run read the child outcome',
    ).toBe(true);
  }, 120_000);
});
