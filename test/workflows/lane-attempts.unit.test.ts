import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { laneLoss, stoppedByPause } from '../../src/workflows/lane-attempts.js';

// What counts as a lane lost under a step (apart from the step's attempts) and what is the
// step's own failure, on the failures the workflow sees from a lane activity.
const failedWith = (cause: Error) =>
  new ActivityFailure('activity failed', 'trainRun', '1', RetryState.MAXIMUM_ATTEMPTS_REACHED, 'lane', cause);

describe('laneLoss', () => {
  it('is a heartbeat timeout (the worker died, was preempted, its host went down)', () => {
    expect(laneLoss(failedWith(new TimeoutFailure('timed out', undefined, 'HEARTBEAT')))).toBe('no heartbeat');
  });

  it("is the lane's own stop at once (LaneStoppedError from a SIGTERM'd lane)", () => {
    const stopped = ApplicationFailure.create({ message: 'lane stopped (SIGTERM)', type: 'LaneStoppedError' });
    expect(laneLoss(failedWith(stopped))).toBe('lane stopped');
  });

  it("is not the step's own failure: a time limit, a trainer's error, a lane nobody polls, or no activity failure", () => {
    expect(laneLoss(failedWith(new TimeoutFailure('timed out', undefined, 'START_TO_CLOSE')))).toBeNull();
    // No worker took it up: the generation moves the job (laneUnavailable), not a loss to send again.
    expect(laneLoss(failedWith(new TimeoutFailure('timed out', undefined, 'SCHEDULE_TO_START')))).toBeNull();
    expect(laneLoss(failedWith(ApplicationFailure.create({ message: 'exit 1', type: 'Error' })))).toBeNull();
    expect(laneLoss(new Error('not from an activity'))).toBeNull();
  });
});

describe('stoppedByPause', () => {
  it("is the SDK's ActivityPause (an attempt a pause stopped, unpaused before its report arrived), and no lane loss", () => {
    const paused = ApplicationFailure.create({ message: 'Activity paused', type: 'ActivityPause' });
    expect(stoppedByPause(failedWith(paused))).toBe(true);
    expect(laneLoss(failedWith(paused))).toBeNull();
    expect(stoppedByPause(failedWith(ApplicationFailure.create({ message: 'exit 1', type: 'Error' })))).toBe(false);
    expect(stoppedByPause(paused)).toBe(false);
  });
});
