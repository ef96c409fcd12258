import { describe, expect, expectTypeOf, it } from 'vitest';
import {
  CHAMPION_SIGNAL,
  PACKAGING_WORKFLOW,
  STOP_NOW_SIGNAL,
  type PackagingWorkflow,
} from '../../src/contract/packaging.js';
import { championSignal, stopNowSignal } from '../../src/workflows/messages.js';
import { packaging } from '../../src/workflows/packaging.js';

// The activities that start, feed and stop the packaging workflow reach it by these names
// (src/contract/packaging.ts), never by importing the workflow: they must be the workflow's own.
describe('the packaging workflow as activities reach it', () => {
  it('is the workflow of that type name, taking that input', () => {
    expect(packaging.name).toBe(PACKAGING_WORKFLOW);
    expectTypeOf(packaging).toEqualTypeOf<PackagingWorkflow>();
  });

  it('takes the signals of those names', () => {
    expect(championSignal.name).toBe(CHAMPION_SIGNAL);
    expect(stopNowSignal.name).toBe(STOP_NOW_SIGNAL);
  });
});
