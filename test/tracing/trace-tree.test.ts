import { Worker } from '@temporalio/worker';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTracing, stopTracing, workerTracing } from '../../src/tracing/tracing.js';
import { trainingRunWorkflowId } from '../../src/workflows/ids.js';
import { JAEGER_BUILD_MS, startJaeger, type JaegerServer, type StoredSpan } from '../helpers/jaeger.js';
import { championLoopCli } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';
import { workflowBundle } from '../helpers/workflow-bundle.js';

// Issue 29, tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, `champion-loop start` is the root of a
// trace that runs through the generation it started, its children and their activities to the
// subprocess each step runs, with its exit code; an advance is the root of the generation it opens. The receiver is a real Jaeger, read back
// through its query API; the CLI runs as its own process, the workers in this one.
describe('a trace from a command to the subprocess of a step', () => {
  let jaeger: JaegerServer;
  let harness: LoopHarness;

  /** The variables as they were: a later test file in this process must not send spans to a Jaeger that is gone. */
  const before: Record<string, string | undefined> = {};

  beforeAll(async () => {
    jaeger = await startJaeger();
    for (const name of Object.keys(jaeger.env)) before[name] = process.env[name];
    Object.assign(process.env, jaeger.env);
    startTracing('test-workers');
    harness = await createLoopHarness({ candidates: [{ name: 'a' }], lanes: 1 });
  }, JAEGER_BUILD_MS); // Jaeger may still be building: npm test builds it in the background, this file runs last.

  afterAll(async () => {
    await harness?.dispose();
    await stopTracing();
    for (const [name, value] of Object.entries(before))
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    await jaeger?.dispose();
  });

  it("start's trace holds the loop's first training run: its activities, and its trainer and evaluator with their exit codes", async () => {
    const started = await championLoopCli(harness.server, ['start', 'traced', '--config', harness.configFile]);
    expect(started.exitCode, started.stderr).toBe(0);
    await harness.waitFor('traced', (view) => view.test_evals >= 1);
    // An advance: the generation it opens runs in the advance's trace.
    const advanced = await championLoopCli(harness.server, ['advance', 'traced', '--reason', 'labels changed']);
    expect(advanced.exitCode, advanced.stderr).toBe(0);
    await harness.waitFor('traced', (view) => view.generation === 2 && view.test_evals >= 1, 120_000);
    expect((await championLoopCli(harness.server, ['stop', 'traced', '--now'])).exitCode).toBe(0);
    await harness.result('traced');

    const [traceId, ...more] = await vi.waitFor(
      async () => {
        const ids = await jaeger.traceIds('champion-loop-cli', 'champion-loop start');
        expect(ids.length).toBeGreaterThan(0);
        return ids;
      },
      { timeout: 30_000, interval: 500 },
    );
    expect(more).toEqual([]);
    // The run's workflow id, as the activity spans name it.
    const run = trainingRunWorkflowId('traced', 1, 1, 'a', 1);
    const spans = await vi.waitFor(
      async () => {
        const all = await jaeger.spans(traceId ?? '');
        const ofRun = all.filter((span) => span.tags.temporalWorkflowId === run);
        expect(ofRun.map((span) => span.name)).toEqual(
          expect.arrayContaining(['RunWorkflow:trainingRun', 'RunActivity:trainRun', 'RunActivity:evaluateRun']),
        );
        expect(all.map((span) => span.name)).toContain('RunWorkflow:generation');
        return all;
      },
      { timeout: 30_000, interval: 500 },
    );
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentOf = (span: StoredSpan) => (span.parentId === null ? undefined : byId.get(span.parentId));
    const childrenOf = (span: StoredSpan | undefined) => spans.filter((child) => child.parentId === span?.spanId);

    // The command is the root; the start it sent (with its update) is its child, and the
    // generation's run a child of that, in the workers' service.
    const root = spans.find((span) => span.name === 'champion-loop start');
    expect(root).toMatchObject({ service: 'champion-loop-cli', parentId: null });
    const [startCall] = childrenOf(root).filter((span) => span.name === 'UpdateWithStartWorkflow:start');
    expect(startCall?.service).toBe('champion-loop-cli');
    const [generation, ...otherRuns] = childrenOf(startCall).filter((span) => span.name === 'RunWorkflow:generation');
    expect(otherRuns).toEqual([]);
    expect(generation).toMatchObject({ service: 'champion-loop-test-workers', error: false });
    expect(generation?.tags).toMatchObject({
      temporalWorkflowId: 'champion-loop/traced',
      'champion_loop.continued_as_new': true,
    });
    // Under the generation: its own activities and its children, the training run among them.
    const underGeneration = childrenOf(generation);
    expect(underGeneration.map((span) => span.name)).toEqual(
      expect.arrayContaining(['RunActivity:readCandidates', 'RunWorkflow:trainingRun']),
    );
    const trainingRun = underGeneration.find(
      (span) => span.name === 'RunWorkflow:trainingRun' && span.tags.temporalWorkflowId === run,
    );
    const activities = childrenOf(trainingRun);
    expect(activities.map((span) => span.name)).toEqual(
      expect.arrayContaining(['RunActivity:trainRun', 'RunActivity:evaluateRun']),
    );
    for (const [activity, step] of [
      ['RunActivity:trainRun', /^step train$/],
      ['RunActivity:evaluateRun', /^step evaluate /],
    ] as const) {
      const ran = activities.find((span) => span.name === activity);
      const subprocesses = childrenOf(ran).filter((span) => step.test(span.name));
      expect(subprocesses.length).toBeGreaterThanOrEqual(1);
      for (const subprocess of subprocesses) {
        expect(subprocess.tags['process.exit.code']).toBe(0);
        expect(subprocess.tags['champion_loop.step']).toBe(subprocess.name.slice('step '.length));
        expect(subprocess.error).toBe(false);
        expect(parentOf(parentOf(subprocess) as StoredSpan)).toBe(trainingRun);
      }
    }
    // The generation the advance opened (its next run, by continue-as-new) went on in the advance's trace.
    const [advanceId] = await jaeger.traceIds('champion-loop-cli', 'champion-loop advance');
    const secondRun = trainingRunWorkflowId('traced', 2, 1, 'a', 1);
    const advanceSpans = await vi.waitFor(
      async () => {
        const all = await jaeger.spans(advanceId ?? '');
        expect(all.filter((span) => span.tags.temporalWorkflowId === secondRun).map((span) => span.name)).toEqual(
          expect.arrayContaining(['RunWorkflow:trainingRun', 'RunActivity:trainRun']),
        );
        expect(all.map((span) => span.name)).toContain('RunWorkflow:generation');
        return all;
      },
      { timeout: 30_000, interval: 500 },
    );
    // ... and not in the start's, read again now that every span has arrived.
    expect((await jaeger.spans(traceId ?? '')).some((span) => span.tags.temporalWorkflowId === secondRun)).toBe(false);
    expect(advanceSpans.find((span) => span.parentId === null)?.name).toBe('champion-loop advance');
    // A traced run replays as it ran (its spans are made on replay too, and dropped: sinks are not called).
    for (const workflowId of ['champion-loop/traced', run]) {
      const runId = spans.find(
        (span) => span.name.startsWith('RunWorkflow:') && span.tags.temporalWorkflowId === workflowId,
      )?.tags.run_id as string;
      const history = await harness.client.workflow.getHandle(workflowId, runId).fetchHistory();
      await Worker.runReplayHistory(
        { workflowBundle: await workflowBundle(), replayName: 'traced-replay', ...workerTracing() },
        history,
      );
    }
    console.log(
      `trace of 'champion-loop start': ${spans.length} spans, ${underGeneration.length} under the generation's first run, ` +
        `services ${[...new Set(spans.map((span) => span.service))].join(', ')}`,
    );
  });
});
