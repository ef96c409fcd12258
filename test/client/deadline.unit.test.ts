import { ServiceError } from '@temporalio/client';
import { describe, expect, it } from 'vitest';
import { deadlinePassed } from '../../src/client/deadline.js';

/** A failed call as the SDK throws it: its ServiceError over grpc-js's error with the status code. */
function failedCall(code: number, details: string): ServiceError {
  const grpc = Object.assign(new Error(`${code} ${details}`), { code, details, metadata: {} });
  return new ServiceError('Failed to query Workflow', { cause: grpc });
}

const CANCELLED = 1;
const DEADLINE_EXCEEDED = 4;
const UNAVAILABLE = 14;

describe('a call that failed at its deadline', () => {
  const past = Date.now() - 1;
  const future = Date.now() + 60_000;

  it("is the client's own DEADLINE_EXCEEDED, whenever it comes", () => {
    expect(deadlinePassed(failedCall(DEADLINE_EXCEEDED, 'Deadline exceeded'), past)).toBe(true);
    expect(deadlinePassed(failedCall(DEADLINE_EXCEEDED, 'Deadline exceeded'), future)).toBe(true);
  });

  it("is the server's reset (CANCELLED) once the deadline has passed, and only then", () => {
    // What a busy CI box saw: the server's timer fired before the client's, its RST_STREAM won.
    expect(deadlinePassed(failedCall(CANCELLED, 'Call cancelled'), past)).toBe(true);
    expect(deadlinePassed(failedCall(CANCELLED, 'Call cancelled'), future)).toBe(false);
  });

  it('is never another failure', () => {
    expect(deadlinePassed(failedCall(UNAVAILABLE, 'Connection dropped'), past)).toBe(false);
    expect(deadlinePassed(new Error('deadline exceeded'), past)).toBe(false);
    expect(deadlinePassed(undefined, past)).toBe(false);
  });
});
