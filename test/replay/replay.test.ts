import { defaultPayloadConverter, type Payload } from '@temporalio/common';
import { Worker } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import type { GenerationInput } from '../../src/workflows/generation.js';
import { generation, packaging, reserveCheck, teacherBuild, trainingRun } from '../../src/workflows/index.js';
import {
  advanceSignal,
  adoptSignal,
  advanceUpdate,
  runReportedSignal,
  stopNowSignal,
  stopSignal,
  stopUpdate,
} from '../../src/workflows/messages.js';
import { BASELINE } from '../../src/workflows/patches.js';
import { workflowBundle } from '../helpers/workflow-bundle.js';
import { loadHistories, type RecordedHistory } from './histories.js';

// Histories recorded from real runs (npm run record-histories) replayed against today's workflow
// code: a change that would break a running loop's determinism fails here. See
// docs/development.md, "Changing workflow code".
describe('recorded histories', () => {
  it('replay without a determinism error against the workflow bundle the workers run', async () => {
    const histories = await loadHistories('replayed');
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
    const histories = await loadHistories('replayed');
    expect(new Set(histories.map((recorded) => recorded.workflowType))).toEqual(
      new Set([generation, trainingRun, reserveCheck, teacherBuild, packaging].map((workflow) => workflow.name)),
    );
    const generationEvents = histories
      .filter((recorded) => recorded.workflowType === generation.name)
      .flatMap((recorded) => recorded.history.events ?? []);
    const signals = new Set(
      generationEvents.map((event) => event.workflowExecutionSignaledEventAttributes?.signalName).filter(Boolean),
    );
    // Children report by their completion; by signal only once adopted (a run's report, carried in).
    expect([...signals].sort()).toEqual(
      expect.arrayContaining(
        [advanceSignal, stopSignal, stopNowSignal, runReportedSignal].map((signal) => signal.name),
      ),
    );
    const completed = new Set(
      generationEvents.map((event) => event.childWorkflowExecutionCompletedEventAttributes?.workflowType?.name),
    );
    expect([...completed]).toEqual(
      expect.arrayContaining([trainingRun, reserveCheck, teacherBuild].map((workflow) => workflow.name)),
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

  it('are all of baseline code: its marker in every run', async () => {
    const histories = await loadHistories('replayed');
    const unmarked = histories.filter((recorded) => !markerIds(recorded).includes(BASELINE));
    expect(unmarked.map((recorded) => recorded.file)).toEqual([]);
  });

  it('of code before the baseline do not replay, so such a loop is stopped and started again (docs/development.md)', async () => {
    // The last release before the baseline: every run recorded the retired changes' markers.
    const before = (await loadHistories('kept')).filter((recorded) => recorded.file.includes('before-baseline'));
    expect(before.length).toBeGreaterThan(10);
    const results = Worker.runReplayHistories(
      { workflowBundle: await workflowBundle(), replayName: 'champion-loop-replay-before-baseline' },
      before.map((recorded) => ({ workflowId: recorded.workflowId, history: recorded.history })),
    );
    const refused: string[] = [];
    for await (const result of results) if (result.error) refused.push(result.error.message);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused.every((message) => message.includes('[TMPRL1100]'))).toBe(true);
  });
});

/** The ids of a run's patch markers (`core_patch`), in the order it recorded them. */
function markerIds(recorded: RecordedHistory): string[] {
  const idOf = (payload: Payload | undefined) =>
    payload ? defaultPayloadConverter.fromPayload<{ id?: string }>(payload).id : undefined;
  return (recorded.history.events ?? []).flatMap((event) => {
    const attributes = event.markerRecordedEventAttributes;
    if (attributes?.markerName !== 'core_patch') return [];
    const id = idOf(attributes.details?.['patch-data']?.payloads?.[0]);
    return id === undefined ? [] : [id];
  });
}
