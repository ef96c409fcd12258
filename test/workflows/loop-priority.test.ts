// Two loops on one lane of one slot, on a real dev server (temporal-dev.yaml's matcher settings):
// one floods the lane with trainings, the other reaches its evaluation, reserve check and teacher
// build, and the server starts the second loop's steps before the flood's trainings queued earlier
// (priority by step kind, fairness key by loop). The scenarios are test/helpers/two-loops.ts's;
// test/cluster/two-loops.test.ts runs the same on a self-hosted cluster.
import { afterAll, beforeAll, describe, it } from 'vitest';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { decisionStepsBeforeAFlood, loopPriorityPastFiveLevels } from '../helpers/two-loops.js';

describe('several loops on one lane: priority by kind, fairness by loop', () => {
  let harness: LoopHarness;

  beforeAll(async () => {
    harness = await createLoopHarness({ lanes: 1, candidates: [{ name: 'unused' }] });
  });

  afterAll(async () => {
    await harness?.dispose();
  });

  it("a loop's evaluation, reserve check and teacher build start before another loop's queued trainings", async () => {
    await decisionStepsBeforeAFlood(harness);
  });

  it("loop.yaml priority puts an experiment's steps behind a production gate's, past Temporal's default 5 levels", async () => {
    await loopPriorityPastFiveLevels(harness);
  });
});
