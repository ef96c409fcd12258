import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { GenerationInput } from '../../src/workflows/generation.js';
import { generation, packaging, reserveCheck, teacherBuild, trainingRun } from '../../src/workflows/index.js';
import {
  advanceSignal,
  adoptSignal,
  advanceUpdate,
  reserveReportedSignal,
  runReportedSignal,
  stopNowSignal,
  stopSignal,
  stopUpdate,
  teacherReportedSignal,
} from '../../src/workflows/messages.js';
import {
  CHAMPION_RULE,
  CLOSED_CHILD_REPORTS,
  REPORTS_BY_COMPLETION,
  RUN_EVENTS_CAP,
  STOP_NOW_UNPACKAGED,
} from '../../src/workflows/patches.js';
import { workflowBundle } from '../helpers/workflow-bundle.js';
import { loadHistories, type RecordedHistory } from './histories.js';

// Histories recorded from real runs (npm run record-histories) replayed against today's workflow
// code: a change that would break a running loop's determinism fails here. See README,
// "Changing workflow code".
describe('recorded histories', () => {
  it('replay without a determinism error against the workflow bundle the workers run', async () => {
    const histories = await loadHistories();
    const results = Worker.runReplayHistories(
      { workflowBundle: await workflowBundle(), replayName: 'champion-loop-replay' },
      histories.map((recorded) => ({ workflowId: recorded.workflowId, history: recorded.history })),
    );
    const failures: string[] = [];
    let replayed = 0;
    for await (const result of results) {
      replayed += 1;
      if (result.error) failures.push(`${result.workflowId}: ${result.error.message}`);
    }
    console.log(`replayed ${replayed} recorded workflow histories`);
    expect(failures).toEqual([]);
    expect(replayed).toBe(histories.length);
  });

  it('cover every workflow and the paths that matter: continue-as-new, advance, stop, stop at once, reserve fail', async () => {
    const histories = await loadHistories();
    expect(new Set(histories.map((recorded) => recorded.workflowType))).toEqual(
      new Set([generation, trainingRun, reserveCheck, teacherBuild, packaging].map((workflow) => workflow.name)),
    );
    const generationEvents = histories
      .filter((recorded) => recorded.workflowType === generation.name)
      .flatMap((recorded) => recorded.history.events ?? []);
    const signals = new Set(
      generationEvents.map((event) => event.workflowExecutionSignaledEventAttributes?.signalName).filter(Boolean),
    );
    expect([...signals].sort()).toEqual(
      expect.arrayContaining(
        [advanceSignal, stopSignal, stopNowSignal, runReportedSignal, reserveReportedSignal, teacherReportedSignal].map(
          (signal) => signal.name,
        ),
      ),
    );
    const updates = new Set(
      generationEvents
        .map((event) => event.workflowExecutionUpdateAcceptedEventAttributes?.acceptedRequest?.input?.name)
        .filter(Boolean),
    );
    expect([...updates].sort()).toEqual(expect.arrayContaining([advanceUpdate.name, stopUpdate.name]));
    const continued = generationEvents.filter((event) => event.workflowExecutionContinuedAsNewEventAttributes);
    expect(continued.length).toBeGreaterThan(2);
    // Children that report by completion, and a run that adopted children carried in.
    expect(generationEvents.some((event) => event.childWorkflowExecutionCompletedEventAttributes?.result)).toBe(true);
    expect(
      generationEvents.some(
        (event) => event.signalExternalWorkflowExecutionInitiatedEventAttributes?.signalName === adoptSignal.name,
      ),
      'a generation run that adopted children it carried in',
    ).toBe(true);
    const openings = histories
      .filter((recorded) => recorded.workflowType === generation.name)
      .map((recorded) => {
        const payload = recorded.history.events?.[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
        return payload
          ? defaultPayloadConverter.fromPayload<GenerationInput>(payload).carry?.opening?.reason
          : undefined;
      });
    expect(openings).toEqual(expect.arrayContaining(['max_reserve_checks', 'reserve_failed', 'advanced by hand']));
  });

  it('cover both sides of every patch: training runs that write their job config by activity (kept) and by local activity', async () => {
    const runs = (await loadHistories()).filter((recorded) => recorded.workflowType === trainingRun.name);
    const events = (recorded: RecordedHistory) => recorded.history.events ?? [];
    const byActivity = runs.filter((recorded) =>
      events(recorded).some((event) => event.activityTaskScheduledEventAttributes?.activityType?.name === 'prepareRun'),
    );
    const byLocalActivity = runs.filter((recorded) =>
      events(recorded).some((event) => event.markerRecordedEventAttributes?.markerName === 'core_local_activity'),
    );
    expect(byActivity.length).toBeGreaterThan(0);
    expect(byLocalActivity.length).toBeGreaterThan(0);
    expect(byActivity.length + byLocalActivity.length).toBe(runs.length);
  });

  it('cover both sides of the generation patches: histories from before them (kept) and with their markers', async () => {
    const generations = (await loadHistories()).filter((recorded) => recorded.workflowType === generation.name);
    const patchId = (payload: Payload | undefined) =>
      payload ? defaultPayloadConverter.fromPayload<{ id?: string }>(payload).id : undefined;
    const marks = (recorded: RecordedHistory, id: string) =>
      (recorded.history.events ?? []).some(
        (event) =>
          event.markerRecordedEventAttributes?.markerName === 'core_patch' &&
          patchId(event.markerRecordedEventAttributes.details?.['patch-data']?.payloads?.[0]) === id,
      );
    for (const id of [
      CLOSED_CHILD_REPORTS,
      STOP_NOW_UNPACKAGED,
      CHAMPION_RULE,
      REPORTS_BY_COMPLETION,
      RUN_EVENTS_CAP,
    ]) {
      expect(
        generations.some((recorded) => marks(recorded, id)),
        `a generation history with the ${id} marker`,
      ).toBe(true);
      expect(
        generations.some((recorded) => !marks(recorded, id)),
        `a generation history from before ${id}`,
      ).toBe(true);
    }
  });
});
