import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { decisionStepsBeforeAFlood, loopPriorityPastFiveLevels } from '../helpers/two-loops.js';
import { startCluster, type ClusterServer } from '../../scripts/cluster/cluster.js';

// Issue 45: two loops on one shared lane of a self-hosted cluster (PostgreSQL, 4 history shards,
// temporal-dev.yaml's dynamic config in the server's dynamic config file: the new matcher,
// fairness, 8 priority levels, one partition per queue), the same scenarios as the dev server's
// test/workflows/loop-priority.test.ts (test/helpers/two-loops.ts), workers in this process.

describe('several loops on one lane of a self-hosted cluster: priority by kind, fairness by loop', () => {
  let cluster: ClusterServer | undefined;
  let harness: LoopHarness | undefined;

  beforeAll(async () => {
    const started = Date.now();
    // The namespace as docs/operating.md makes it: its retention and the loop's six search attributes.
    cluster = await startCluster(inject('clusterTools'), { cli: inject('temporalCli') });
    console.log(`cluster: PostgreSQL, schema, server with 4 shards, namespace in ${Date.now() - started} ms`);
    harness = await createLoopHarness({ lanes: 1, candidates: [{ name: 'unused' }], server: cluster });
  });

  afterAll(async () => {
    await harness?.dispose();
    await cluster?.dispose();
  });

  const on = (): LoopHarness => {
    if (!harness) throw new Error('no harness: the cluster did not start');
    return harness;
  };

  it("the server takes every key of temporal-dev.yaml's dynamic config: none unregistered or invalid", async () => {
    if (!cluster) throw new Error('the cluster did not start');
    // Its loader logs each key it does not know, or whose value does not validate, and then goes on without it.
    const said = (await readFile(cluster.logFile, 'utf8')).split('\n').filter((line) => /dynamic config/i.test(line));
    expect(said.filter((line) => /warning|error/i.test(line))).toEqual([]);
  });

  it("a loop's evaluation, reserve check and teacher build start before another loop's queued trainings", async () => {
    await decisionStepsBeforeAFlood(on());
  });

  it("loop.yaml priority puts an experiment's steps behind a production gate's, past Temporal's default 5 levels", async () => {
    await loopPriorityPastFiveLevels(on());
  });
});
