// Two loops on one lane of one slot, on whatever server a loop harness runs on (a dev server of its
// own, or a self-hosted cluster): one floods the lane with trainings, the other reaches its
// evaluation, reserve check and teacher build. Each step's priority (its kind) and fairness key (its
// loop) are in its ActivityTaskScheduled event, and the server starts the second loop's steps before
// the flood's trainings queued earlier. The flood's trainings end only when the test lets them
// (`fixture_wait_for`): one is let go each time the other loop has a lane step waiting, so the
// flood's queue is never drained by the clock however slowly the other loop's children start.
// Used by test/workflows/loop-priority.test.ts (dev server) and test/cluster/two-loops.test.ts.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { temporal } from '@temporalio/proto';
import { expect } from 'vitest';
import type { LoopHarness } from './loop-harness.js';
import { loopWorkflowId } from '../../src/workflows/ids.js';
import { stopNowSignal } from '../../src/workflows/messages.js';
import { STEP_PRIORITY } from '../../src/workflows/step-priority.js';
import { renderStatus } from '../../src/client/render-status.js';

type HistoryEvent = temporal.api.history.v1.IHistoryEvent;

/** What the scenarios use of a harness: a client on its server, its lane and folder, loops started on it. */
type TwoLoopHarness = Pick<LoopHarness, 'client' | 'config' | 'dir' | 'writeCandidates' | 'startWith' | 'waitFor'>;

/** One lane step as its child's history (and, while it runs, its pending activity) tells it. */
interface Step {
  readonly loop: string;
  readonly childId: string;
  readonly type: string;
  readonly scheduledMs: number;
  /** When a worker took it; null while it waits in the lane's queue. */
  readonly startedMs: number | null;
  /** Whether it has ended (completed, failed, timed out or cancelled). */
  readonly closed: boolean;
  readonly priority: { priorityKey?: number | null; fairnessKey?: string | null; fairnessWeight?: number | null };
  /** The child workflow's own priority, as its start recorded it. */
  readonly childPriority: { priorityKey?: number | null; fairnessKey?: string | null } | null;
}

const FLOOD = 'flood';
const GATE = 'gate';
const FLOOD_RUNS = 12;

function ms(time: { seconds?: unknown; nanos?: number | null } | null | undefined): number {
  if (!time) return Number.NaN;
  return Number(time.seconds ?? 0) * 1000 + Math.floor((time.nanos ?? 0) / 1e6);
}

/** Every lane step of a loop's children, from their histories. */
async function stepsOf(harness: TwoLoopHarness, loop: string): Promise<Step[]> {
  const steps: Step[] = [];
  for await (const child of harness.client.workflow.list({
    query: `LoopId = '${loop}' AND LoopKind != 'generation'`,
  })) {
    const handle = harness.client.workflow.getHandle(child.workflowId, child.runId);
    const events: HistoryEvent[] = (await handle.fetchHistory()).events ?? [];
    const childPriority = events[0]?.workflowExecutionStartedEventAttributes?.priority ?? null;
    const pending = new Map(
      ((await handle.describe()).raw.pendingActivities ?? []).map((activity) => [
        activity.activityId,
        activity.lastStartedTime ? ms(activity.lastStartedTime) : null,
      ]),
    );
    for (const event of events) {
      const scheduled = event.activityTaskScheduledEventAttributes;
      if (!scheduled || !scheduled.taskQueue?.name?.includes('.gpu')) continue;
      const id = Number(event.eventId);
      const started = events.find((later) => Number(later.activityTaskStartedEventAttributes?.scheduledEventId) === id);
      const closed = events.some((later) =>
        [
          later.activityTaskCompletedEventAttributes,
          later.activityTaskFailedEventAttributes,
          later.activityTaskTimedOutEventAttributes,
          later.activityTaskCanceledEventAttributes,
        ].some((attributes) => Number(attributes?.scheduledEventId) === id),
      );
      steps.push({
        loop,
        childId: child.workflowId,
        type: scheduled.activityType?.name ?? '',
        scheduledMs: ms(event.eventTime),
        startedMs: started ? ms(started.eventTime) : (pending.get(scheduled.activityId ?? '') ?? null),
        closed,
        priority: scheduled.priority ?? {},
        childPriority,
      });
    }
  }
  return steps.sort((a, b) => a.scheduledMs - b.scheduledMs);
}

/**
 * A candidates file of `runs` candidates whose trainings each hold the lane's one slot until the
 * test writes its release file (`<loop>.release/<candidate>`): the rest wait in the lane's queue.
 */
async function heldCandidates(harness: TwoLoopHarness, loop: string, runs: number): Promise<string> {
  const releases = path.join(harness.dir, `${loop}.release`);
  await mkdir(releases, { recursive: true });
  const file = path.join(harness.dir, `${loop}-candidates.yaml`);
  await harness.writeCandidates(
    Array.from({ length: runs }, (_, index) => {
      const name = `c${String(index).padStart(2, '0')}`;
      return { name, overrides: { fixture_epochs: 1, fixture_wait_for: path.join(releases, name) } };
    }),
    file,
  );
  return file;
}

/**
 * Until `done` says so: whenever `loop` has a lane step waiting in the queue, let the flood's
 * training that holds the lane's slot end (its release file), so the server chooses what runs
 * next among the waiting steps. Nothing else ends a flood training: its queue drains only as
 * fast as the other loop asks for the lane. Returns both loops' steps as last read.
 */
async function drainFloodFor(
  harness: TwoLoopHarness,
  flood: string,
  loop: string,
  done: (steps: readonly Step[]) => boolean,
): Promise<{ flood: Step[]; loop: Step[] }> {
  const releases = path.join(harness.dir, `${flood}.release`);
  // Only a bound for a broken loop: no step waits on this clock.
  const deadline = Date.now() + 240_000;
  for (;;) {
    const [loopSteps, floodSteps] = [await stepsOf(harness, loop), await stepsOf(harness, flood)];
    if (done(loopSteps)) return { flood: floodSteps, loop: loopSteps };
    if (Date.now() > deadline)
      throw new Error(`${loop} did not get there: ${JSON.stringify(loopSteps.map((s) => [s.type, s.startedMs]))}`);
    if (loopSteps.some((step) => step.startedMs === null && !step.closed))
      for (const training of floodSteps)
        if (training.type === 'trainRun' && training.startedMs !== null && !training.closed) {
          const candidate = (training.childId.split('/').pop() ?? '').replace(/\.\d+$/, '');
          await writeFile(path.join(releases, candidate), '');
        }
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The flood's trainings waiting in the lane's queue when `step` was scheduled. */
const queuedAt = (floodTrainings: readonly Step[], step: Step) =>
  floodTrainings.filter(
    (training) => training.scheduledMs < step.scheduledMs && (training.startedMs ?? Infinity) > step.scheduledMs,
  );

/** Stop loops at once (their running children cancelled) and wait until they have closed. */
async function stopNow(harness: TwoLoopHarness, ...loops: string[]): Promise<void> {
  for (const loop of loops) {
    const handle = harness.client.workflow.getHandle(loopWorkflowId(loop));
    await handle.signal(stopNowSignal);
    await handle.result().catch(() => undefined);
  }
}

/**
 * A loop's evaluation, reserve check and teacher build start before another loop's queued
 * trainings: loop `flood` queues 12 trainings on the harness's one lane, loop `gate` (fairness
 * weight 2) then runs one candidate through its training, evaluation, reserve check and teacher
 * build. Checks each step's priority and fairness key in its ActivityTaskScheduled event and its
 * child's start, and the order the server started them in. The harness's one lane has one slot.
 */
export async function decisionStepsBeforeAFlood(harness: TwoLoopHarness): Promise<void> {
  const lane = harness.config.lanes[0];
  if (!lane) throw new Error('the harness has no lane');
  const waitLong = { ...harness.config.timeouts, schedule_to_start: '10m' as const };
  // The flood tells its generation the lane has a slot per candidate: all its trainings queue at once.
  await harness.startWith(FLOOD, {
    candidates: await heldCandidates(harness, FLOOD, FLOOD_RUNS),
    parallel: FLOOD_RUNS,
    lanes: [{ ...lane, slots: FLOOD_RUNS }],
    timeouts: waitLong,
    saturation_evals: 10_000,
  });
  await harness.waitFor(FLOOD, (view) => view.in_flight.length >= FLOOD_RUNS - 1, 60_000);

  // The gate: one candidate, a reserve check due after its first test eval, a teacher after round 1.
  const gateCandidates = path.join(harness.dir, 'gate-candidates.yaml');
  await harness.writeCandidates([{ name: 'solo', overrides: { fixture_epochs: 1 } }], gateCandidates);
  await harness.startWith(GATE, {
    candidates: gateCandidates,
    parallel: 1,
    timeouts: waitLong,
    saturation_evals: 1,
    teacher_after_round: 1,
    fairness_weight: 2,
  });
  // Its training, evaluation and reserve check, then the teacher build, each let onto the lane
  // by the flood's training that holds it ending.
  const { flood, loop: gate } = await drainFloodFor(harness, FLOOD, GATE, (steps) =>
    steps.some((step) => step.type === 'buildTeacher' && step.startedMs !== null),
  );

  // Each kind's priority and its loop's fairness key (and weight, where loop.yaml sets one) in history.
  const floodTrainings = flood.filter((step) => step.type === 'trainRun');
  expect(floodTrainings.length).toBeGreaterThanOrEqual(FLOOD_RUNS - 1);
  for (const step of flood) {
    const key = step.type === 'trainRun' ? STEP_PRIORITY.training : STEP_PRIORITY.evaluation;
    expect(step.priority, `${step.childId} ${step.type}`).toMatchObject({ priorityKey: key, fairnessKey: FLOOD });
    expect(step.priority.fairnessWeight ?? 0).toBe(0);
  }
  const gateKeys: Record<string, number> = {
    trainRun: STEP_PRIORITY.training,
    evaluateRun: STEP_PRIORITY.evaluation,
    evaluateReserve: STEP_PRIORITY.reserve,
    buildTeacher: STEP_PRIORITY.teacher,
  };
  for (const step of gate)
    expect(step.priority, `${step.childId} ${step.type}`).toMatchObject({
      priorityKey: gateKeys[step.type],
      fairnessKey: GATE,
      fairnessWeight: 2,
    });
  const first = (type: string) => {
    const step = gate.find((candidate) => candidate.type === type);
    if (!step) throw new Error(`the gate ran no ${type}: ${JSON.stringify(gate.map((s) => s.type))}`);
    return step;
  };
  const [training, evaluation, reserve, teacher] = [
    first('trainRun'),
    first('evaluateRun'),
    first('evaluateReserve'),
    first('buildTeacher'),
  ];
  // Child workflows carry their kind's priority too.
  expect(reserve.childPriority).toMatchObject({ priorityKey: STEP_PRIORITY.reserve, fairnessKey: GATE });
  expect(teacher.childPriority).toMatchObject({ priorityKey: STEP_PRIORITY.teacher, fairnessKey: GATE });
  expect(training.childPriority).toMatchObject({ priorityKey: STEP_PRIORITY.training, fairnessKey: GATE });

  // Priority: each of the gate's decision steps starts before every flood training queued ahead of it.
  for (const step of [evaluation, reserve, teacher]) {
    const queued = queuedAt(floodTrainings, step);
    expect(queued.length, `flood trainings queued when the gate's ${step.type} was scheduled`).toBeGreaterThanOrEqual(
      2,
    );
    const overtaken = queued.filter((waiting) => (waiting.startedMs ?? Infinity) < (step.startedMs ?? -Infinity));
    expect(overtaken.map((waiting) => waiting.childId)).toEqual([]);
  }
  // Fairness: the gate's training (the same priority as the flood's) does not wait for the whole
  // flood queued before it, as it would first in, first out.
  const queued = queuedAt(floodTrainings, training);
  expect(queued.length).toBeGreaterThanOrEqual(4);
  const after = queued.filter((waiting) => (waiting.startedMs ?? Infinity) > (training.startedMs ?? Infinity));
  expect(after.length).toBeGreaterThanOrEqual(Math.ceil(queued.length / 2));
  await stopNow(harness, FLOOD, GATE);
}

/**
 * loop.yaml priority puts an experiment's steps behind a production gate's, past Temporal's
 * default 5 levels: loop `experiment` (priority 4) queues 6 trainings on the harness's one lane
 * (their keys 8, `status` shows them), loop `production` (priority 0) then runs one training and
 * its evaluation, which the server starts before the experiment's steps queued earlier.
 */
export async function loopPriorityPastFiveLevels(harness: TwoLoopHarness): Promise<void> {
  const lane = harness.config.lanes[0];
  if (!lane) throw new Error('the harness has no lane');
  const waitLong = { ...harness.config.timeouts, schedule_to_start: '10m' as const };
  await harness.startWith('experiment', {
    candidates: await heldCandidates(harness, 'experiment', 6),
    parallel: 6,
    lanes: [{ ...lane, slots: 6 }],
    timeouts: waitLong,
    saturation_evals: 10_000,
    priority: 4,
  });
  const experimentView = await harness.waitFor('experiment', (view) => view.in_flight.length >= 6, 60_000);
  // `status` shows each job's step and the priority key it was started with: the kind's, plus loop.yaml's 4.
  for (const flight of experimentView.in_flight)
    expect(flight, flight.jobId).toMatchObject({ step: 'training', priority: STEP_PRIORITY.training + 4 });
  expect(renderStatus(experimentView)).toMatch(/\n {4}run champ-g001-r0001-\S+ \(training, priority 8\) since /);
  const gateCandidates = path.join(harness.dir, 'production-candidates.yaml');
  await harness.writeCandidates([{ name: 'solo', overrides: { fixture_epochs: 1 } }], gateCandidates);
  await harness.startWith('production', { candidates: gateCandidates, parallel: 1, timeouts: waitLong });
  // Its training and evaluation, each let onto the lane by the experiment's training that holds it ending.
  const { flood: experiment, loop: production } = await drainFloodFor(harness, 'experiment', 'production', (steps) =>
    steps.some((step) => step.type === 'evaluateRun' && step.closed),
  );
  await stopNow(harness, 'experiment', 'production');

  for (const step of experiment)
    expect(step.priority, `${step.childId} ${step.type}`).toMatchObject({
      priorityKey: (step.type === 'trainRun' ? STEP_PRIORITY.training : STEP_PRIORITY.evaluation) + 4,
      fairnessKey: 'experiment',
    });
  const training = production.find((step) => step.type === 'trainRun');
  if (!training) throw new Error('production ran no training');
  expect(training.priority).toMatchObject({ priorityKey: STEP_PRIORITY.training, fairnessKey: 'production' });
  const floodTrainings = experiment.filter((step) => step.type === 'trainRun');
  const queued = queuedAt(floodTrainings, training);
  expect(queued.length).toBeGreaterThanOrEqual(2);
  // Its training (key 4) goes before the experiment's evaluations (key 6) and trainings (key 8) queued earlier.
  const overtaken = experiment.filter(
    (step) =>
      step.scheduledMs < training.scheduledMs &&
      (step.startedMs ?? Infinity) > training.scheduledMs &&
      (step.startedMs ?? Infinity) < (training.startedMs ?? -Infinity),
  );
  expect(overtaken.map((step) => `${step.childId} ${step.type}`)).toEqual([]);
}
