import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startTracing, stopTracing } from '../../src/tracing/tracing.js';
import { trainingRunWorkflowId } from '../../src/workflows/ids.js';
import { startJaeger, type JaegerServer, type StoredSpan } from '../helpers/jaeger.js';
import { championLoopCli } from '../helpers/loop-checks.js';
import { createLoopHarness, type LoopHarness } from '../helpers/loop-harness.js';

// Issue 29, tracing: with OTEL_EXPORTER_OTLP_ENDPOINT set, `champion-loop start` is the root of a
// trace that runs through the workflows it started (their headers carry it) to every activity and
// the subprocess each step runs, with its exit code. The receiver is a real Jaeger, read back
// through its query API; the CLI runs as its own process, the workers in this one.
describe('a trace from a command to the subprocess of a step', () => {
  let jaeger: JaegerServer;
  let harness: LoopHarness;

  beforeAll(async () => {
    jaeger = await startJaeger();
    Object.assign(process.env, jaeger.env);
    startTracing('test-workers');
    harness = await createLoopHarness({ candidates: [{ name: 'a' }], lanes: 1 });
  });

  afterAll(async () => {
    await harness?.dispose();
    await stopTracing();
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
          expect.arrayContaining(['RunActivity:trainRun', 'RunActivity:evaluateRun']),
        );
        return all;
      },
      { timeout: 30_000, interval: 500 },
    );
    const byId = new Map(spans.map((span) => [span.spanId, span]));
    const parentOf = (span: StoredSpan) => (span.parentId === null ? undefined : byId.get(span.parentId));
    const childrenOf = (span: StoredSpan | undefined) => spans.filter((child) => child.parentId === span?.spanId);

    // The command is the root; the start it sent (with its update) is its child.
    const root = spans.find((span) => span.name === 'champion-loop start');
    expect(root).toMatchObject({ service: 'champion-loop-cli', parentId: null });
    const [startCall] = childrenOf(root).filter((span) => span.name === 'UpdateWithStartWorkflow:start');
    expect(startCall?.service).toBe('champion-loop-cli');
    // The generation's activities and the training run's are children of the start, in the workers' service.
    const activities = childrenOf(startCall);
    expect(activities.map((span) => span.name)).toEqual(
      expect.arrayContaining(['RunActivity:readCandidates', 'RunActivity:trainRun', 'RunActivity:evaluateRun']),
    );
    for (const activity of activities) expect(activity.service).toBe('champion-loop-test-workers');
    for (const [activity, step] of [
      ['RunActivity:trainRun', /^step train$/],
      ['RunActivity:evaluateRun', /^step evaluate /],
    ] as const) {
      const ran = activities.find((span) => span.name === activity && span.tags.temporalWorkflowId === run);
      const subprocesses = childrenOf(ran).filter((span) => step.test(span.name));
      expect(subprocesses.length).toBeGreaterThanOrEqual(1);
      for (const subprocess of subprocesses) {
        expect(subprocess.tags['process.exit.code']).toBe(0);
        expect(subprocess.tags['champion_loop.step']).toBe(subprocess.name.slice('step '.length));
        expect(subprocess.error).toBe(false);
        expect(parentOf(parentOf(subprocess) as StoredSpan)).toBe(startCall);
      }
    }
    // The generation the advance opened (its next run, by continue-as-new) went on in the advance's trace.
    const [advanceId] = await jaeger.traceIds('champion-loop-cli', 'champion-loop advance');
    const secondRun = trainingRunWorkflowId('traced', 2, 1, 'a', 1);
    const advanceSpans = await vi.waitFor(
      async () => {
        const all = await jaeger.spans(advanceId ?? '');
        expect(all.filter((span) => span.tags.temporalWorkflowId === secondRun).map((span) => span.name)).toContain(
          'RunActivity:trainRun',
        );
        return all;
      },
      { timeout: 30_000, interval: 500 },
    );
    // ... and not in the start's, read again now that every span has arrived.
    expect((await jaeger.spans(traceId ?? '')).some((span) => span.tags.temporalWorkflowId === secondRun)).toBe(false);
    expect(advanceSpans.find((span) => span.parentId === null)?.name).toBe('champion-loop advance');
    console.log(
      `trace of 'champion-loop start': ${spans.length} spans, ${activities.length} activities under the start, ` +
        `services ${[...new Set(spans.map((span) => span.service))].join(', ')}`,
    );
  });
});
