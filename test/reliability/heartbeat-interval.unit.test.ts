import { describe, expect, it } from 'vitest';
import { heartbeatInterval } from '../../src/activities/support/activity-context.js';

// A step beat every 5 s whatever the activity's heartbeat timeout was: with `heartbeat: 5s` in
// loop.yaml (as the fault tests use) every beat raced the server's timer, and a busy worker lost.
describe('heartbeatInterval', () => {
  it('beats every 5 s when the heartbeat timeout leaves room, else three times per timeout', () => {
    expect(heartbeatInterval(undefined)).toBe(5_000);
    expect(heartbeatInterval(0)).toBe(5_000);
    expect(heartbeatInterval(120_000)).toBe(5_000);
    expect(heartbeatInterval(15_000)).toBe(5_000);
    expect(heartbeatInterval(10_000)).toBe(3_333);
    expect(heartbeatInterval(5_000)).toBe(1_666);
    expect(heartbeatInterval(90)).toBe(100);
  });
});
