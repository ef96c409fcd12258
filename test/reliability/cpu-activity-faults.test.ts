import { copyFile, rename } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { temporal } from '@temporalio/proto';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopNowSignal } from '../../src/workflows/messages.js';
import { CPU_HEARTBEAT_TIMEOUT } from '../../src/contract/steps.js';
import { createProcessLoop, type ProcessLoop } from '../helpers/process-loop.js';
import { killWorker } from '../helpers/worker-processes.js';

// Issue 23: an orchestrator killed during one of its CPU activities (they take milliseconds) held
// the loop up for the activity's 5-minute start-to-close limit. The activity now heartbeats while
// it runs, with a short heartbeat timeout, so its retry runs on the next orchestrator within it.
// To be killed mid-activity deterministically, the activity reads a candidates file that is a
// named pipe nobody writes: it blocks in `readCandidates` until the pipe is replaced by the file.

const { EventType, TimeoutType } = temporal.api.enums.v1;

describe('an orchestrator killed during a CPU activity', () => {
  let loop: ProcessLoop;

  beforeAll(async () => {
    loop = await createProcessLoop({
      candidates: [{ name: 'a' }],
      lanes: 1,
      base: { fixture_epochs: 1 },
      loop: { parallel: 1, saturation_evals: 1000 },
    });
  }, 240_000);

  afterAll(async () => {
    await loop?.dispose();
  });

  it(`costs the loop the CPU heartbeat timeout (${CPU_HEARTBEAT_TIMEOUT}), not the 5-minute start-to-close limit`, async () => {
    const config = loop.configFor('cpu-kill');
    const real = path.resolve(config.workdir, config.candidates);
    const candidates = path.join(loop.dir, 'candidates-piped.yaml');
    await execa('mkfifo', [candidates]);
    await loop.startWith('cpu-kill', { candidates });
    const handle = loop.client.workflow.getHandle(loopWorkflowId('cpu-kill'));

    // The generation's first readCandidates is running and blocked on the pipe.
    await expect
      .poll(
        async () =>
          (await handle.describe()).raw.pendingActivities?.some(
            (activity) =>
              activity.activityType?.name === 'readCandidates' &&
              activity.state === temporal.api.enums.v1.PendingActivityState.PENDING_ACTIVITY_STATE_STARTED,
          ),
        { timeout: 60_000, interval: 250, message: 'readCandidates started' },
      )
      .toBe(true);
    await killWorker(loop.orchestrator);
    // The pipe becomes the file, and another orchestrator starts.
    const piped = `${candidates}.pipe`;
    await rename(candidates, piped);
    await copyFile(real, candidates);
    await loop.restart('orchestrator');
    const killedAt = Date.now();

    // The loop goes on: its first round is trained and the next planned, well inside the start-to-close limit.
    await loop.waitFor('cpu-kill', (view) => view.round >= 2, 120_000);
    expect(Date.now() - killedAt).toBeLessThan(5 * 60_000);

    // The attempt the kill lost ended on its heartbeat timeout, and the second attempt read the file.
    const events = (await handle.fetchHistory()).events ?? [];
    const scheduled = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED &&
        event.activityTaskScheduledEventAttributes?.activityType?.name === 'readCandidates',
    );
    expect(scheduled?.activityTaskScheduledEventAttributes?.heartbeatTimeout?.seconds?.toString()).toBe('10');
    const started = events.find(
      (event) =>
        event.eventType === EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED &&
        event.activityTaskStartedEventAttributes?.scheduledEventId?.toString() === scheduled?.eventId?.toString(),
    );
    expect(started?.activityTaskStartedEventAttributes?.attempt).toBe(2);
    expect(started?.activityTaskStartedEventAttributes?.lastFailure?.timeoutFailureInfo?.timeoutType).toBe(
      TimeoutType.TIMEOUT_TYPE_HEARTBEAT,
    );
    console.log('orchestrator killed during readCandidates: 1 fault injected, the retry ran after a heartbeat timeout');
    await handle.signal(stopNowSignal);
  });
});
