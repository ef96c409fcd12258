import { randomUUID } from 'node:crypto';
import {
  ServiceError,
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowNotFoundError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import { ApplicationFailure, defaultPayloadConverter } from '@temporalio/common';
import { openPayloads } from '../codec/decode-payloads.js';
import proto from '@temporalio/proto';
import { PACKAGING_ENDED_BY_HAND } from '../activities/request-packaging.js';
import type { LoopConfig } from '../config/loop-config.js';
import { generation, type GenerationInput } from '../workflows/generation.js';
import { loopWorkflowId, packagingWorkflowId } from '../workflows/ids.js';
import type { LoopView } from '../workflows/loop-view.js';
import type { PackagingView } from '../workflows/packaging-view.js';
import {
  advanceUpdate,
  packagingQuery,
  startUpdate,
  stateQuery,
  stopNowSignal,
  stopNowUpdate,
  stopUpdate,
  UPDATE_REFUSED,
} from '../workflows/messages.js';
import { ORCHESTRATOR_QUEUE } from '../workflows/queues.js';
import { GENERATION, LOOP_ID, LOOP_KIND } from '../workflows/search-attributes.js';
import { deadlinePassed } from './deadline.js';
import { NoSuchLoopError } from './no-such-loop.js';
import {
  configQueues,
  latestRunConfig,
  loopQueues,
  startInputOf,
  queuesWithoutPoller,
  type LoopQueue,
} from './pollers.js';
import { runsStartedActivity } from './busy-lanes.js';
import { redeliverReports, resumptionOf, type Resumption } from './resume.js';
import { statusInWords } from './status-words.js';
import { seedResumption } from './seed-carry.js';
import { loopIdProblem } from './loop-id.js';
import { relocated, type FolderMove } from './relocation.js';
import { stopFileExists, stopFilePath } from '../activities/support/paths.js';
import { uploadWaiting } from './step-waits.js';

/** What `start` did: started the loop, resumed a stopped one, or found it already running. */
export type StartOutcome =
  /** `incarnation`: a `start --fresh` of a loop that had history (2 and up). */
  | {
      readonly kind: 'started';
      readonly workflowId: string;
      readonly runId: string;
      readonly incarnation?: number;
      /** The loop's view as its run answered the start (absent: no orchestrator polled, or none answered in time). */
      readonly view?: LoopView;
      /** An orchestrator polled but did not answer within the deadline: the start was told from the run's input. */
      readonly unanswered?: true;
    }
  | {
      readonly kind: 'resumed';
      readonly workflowId: string;
      readonly runId: string;
      readonly generation: number;
      readonly from: string;
      readonly notes?: string[];
      readonly view?: LoopView;
      readonly unanswered?: true;
    }
  | { readonly kind: 'already-running'; readonly workflowId: string; readonly view: LoopView | null };

async function runningView(client: Client, workflowId: string): Promise<LoopView | null> {
  // Without an orchestrator polling, the query would only time out.
  if ((await queuesWithoutPoller(client, loopQueues([], false))).length > 0) return null;
  return client.workflow
    .getHandle(workflowId)
    .query(stateQuery)
    .catch(() => null);
}

/**
 * Start a loop; a running loop is reported instead of started twice; any other goes on where it
 * was (see resumptionOf), unless `fresh` (the caller moved its old state aside). `seedStateDir`:
 * a loop with no history goes on from a Python seed loop's state dir (seedResumption).
 */
export async function startLoop(
  client: Client,
  loopId: string,
  config: LoopConfig,
  options: {
    fresh?: boolean;
    seedStateDir?: string;
    relocation?: readonly FolderMove[];
    /** How long to wait for the run's answer (default START_ANSWER_DEADLINE_MS). */
    answerWithinMs?: number;
  } = {},
): Promise<StartOutcome> {
  const idProblem = loopIdProblem(loopId);
  if (idProblem !== null) throw new Error(idProblem);
  const workflowId = loopWorkflowId(loopId);
  const resumption =
    options.seedStateDir === undefined
      ? await resumptionOf(client, loopId, config)
      : await seedResumption(client, loopId, config, options.seedStateDir);
  if (resumption.kind === 'running')
    return { kind: 'already-running', workflowId, view: await runningView(client, workflowId) };
  if (await stopFileExists(config.state_dir))
    throw new Error(
      `${stopFilePath(config.state_dir)} exists: it stops loop ${loopId} (as the seed's STOP file did). ` +
        'Delete it, then start the loop again. Nothing started.',
    );
  const resumed: (Extract<Resumption, { kind: 'resume' }> & { notes?: string[] }) | null =
    resumption.kind === 'resume' && !options.fresh ? resumption : null;
  // Folders `relocate` moved: every path the carry holds under them moves with them.
  const relocation = options.relocation ?? [];
  const resume =
    resumed && relocation.length > 0
      ? {
          ...resumed,
          carry: relocated(resumed.carry, relocation),
          notes: [
            ...(resumed.notes ?? []),
            `relocated: ${relocation.map((move) => `${move.field} ${move.from} -> ${move.to}`).join(', ')}`,
          ],
        }
      : resumed;
  const incarnation = options.fresh ? await freshIncarnation(client, loopId) : 1;
  const startToken = randomUUID();
  const started = await startOnce(client, loopId, options.answerWithinMs ?? START_ANSWER_DEADLINE_MS, {
    workflowId,
    taskQueue: ORCHESTRATOR_QUEUE,
    args: [
      {
        loopId,
        config,
        ...(resume ? { carry: resume.carry } : {}),
        ...(incarnation > 1 ? { incarnation } : {}),
        startToken,
      },
    ],
    typedSearchAttributes: [
      { key: LOOP_ID, value: loopId },
      { key: LOOP_KIND, value: 'generation' },
      { key: GENERATION, value: resume?.carry.state.generation ?? 1 },
    ],
    staticSummary: `champion loop ${loopId}`,
  });
  if (started.kind === 'already-running') return started;
  const answered =
    started.view === null ? (started.unanswered ? { unanswered: true as const } : {}) : { view: started.view };
  if (!resume)
    return {
      kind: 'started',
      workflowId,
      runId: started.runId,
      ...(incarnation > 1 ? { incarnation } : {}),
      ...answered,
    };
  await redeliverReports(client, loopId, resume.carry);
  return {
    kind: 'resumed',
    workflowId,
    runId: started.runId,
    generation: resume.carry.state.generation,
    from: resume.from,
    ...(resume.notes ? { notes: resume.notes } : {}),
    ...answered,
  };
}

/**
 * How long `start` waits for the orchestrator to answer from the loop's run before it tells a
 * start from the run's input: a live one answers within a workflow task; one killed a moment ago
 * still shows as a poller, and `start` should not wait on it longer than `status` does.
 */
const START_ANSWER_DEADLINE_MS = 10_000;

type GenerationStart = WorkflowStartOptions<typeof generation> & { readonly args: [GenerationInput] };

/**
 * Start the loop's workflow, or find it running, in one step the server makes atomic: the start
 * goes with the `start` update (Update-with-Start, conflict policy USE_EXISTING), and the run
 * answers whether this start started it, with its view. Without an orchestrator polling, nobody
 * could answer: a plain start (which fails on a running loop) does, and the view is null. An
 * answer that does not come in time (the orchestrator died a moment ago, or stalls) or is
 * refused (an orchestrator of a build without the update) is told from the run's input: its
 * `startToken` is this start's, or another's.
 */
async function startOnce(
  client: Client,
  loopId: string,
  answerWithinMs: number,
  options: GenerationStart,
): Promise<
  | { kind: 'started'; runId: string; view: LoopView | null; unanswered?: true }
  | Extract<StartOutcome, { kind: 'already-running' }>
> {
  const { workflowId } = options;
  const startToken = options.args[0].startToken ?? '';
  const alreadyRunning = (view: LoopView | null) => ({ kind: 'already-running' as const, workflowId, view });
  if ((await queuesWithoutPoller(client, loopQueues([], false))).length > 0) {
    try {
      const handle = await client.workflow.start(generation, options);
      return { kind: 'started', runId: handle.firstExecutionRunId, view: null };
    } catch (error) {
      if (error instanceof WorkflowExecutionAlreadyStartedError) return alreadyRunning(null);
      throw error;
    }
  }
  const operation = new WithStartWorkflowOperation(generation, {
    ...options,
    workflowIdConflictPolicy: 'USE_EXISTING',
  });
  const deadline = Date.now() + answerWithinMs;
  try {
    const answer = await client.withDeadline(deadline, () =>
      client.workflow.executeUpdateWithStart(startUpdate, { args: [startToken], startWorkflowOperation: operation }),
    );
    if (!answer.startedHere) return alreadyRunning(answer.view);
    return { kind: 'started', runId: answer.runId, view: answer.view };
  } catch (error) {
    const unanswered =
      error instanceof WorkflowUpdateFailedError ||
      error instanceof WorkflowUpdateRPCTimeoutOrCancelledError ||
      deadlinePassed(error, deadline);
    if (!unanswered) throw error;
    const running = await client.workflow
      .getHandle(workflowId)
      .describe()
      .catch(() => null);
    if (running?.status.name !== 'RUNNING') throw error;
    const input = await startInputOf(client, loopId, running.raw.workflowExecutionInfo?.firstRunId ?? undefined);
    return input?.startToken === startToken
      ? { kind: 'started', runId: running.runId, view: null, unanswered: true }
      : alreadyRunning(null);
  }
}

/**
 * The command that resumes a stopped loop: `start` with its `--config` (history keeps the loop's
 * workdir, by default the folder of its loop.yaml, not the file's name).
 */
export function resumeCommand(loopId: string, workdir?: string): string {
  const config = workdir ? `${workdir.replace(/\/+$/, '')}/loop.yaml` : '<its loop.yaml>';
  return `champion-loop start ${loopId} --config ${config}${workdir ? ' (or the loop.yaml you started it with)' : ''}`;
}

/** The running loop's handle; a loop that is not running is a clear error. */
async function runningLoop(client: Client, loopId: string) {
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  try {
    const description = await handle.describe();
    if (description.status.name !== 'RUNNING') {
      // The whole command: `start` needs the loop's loop.yaml, which history knows only by its folder.
      const input = await startInputOf(client, loopId, description.runId).catch(() => null);
      throw new Error(
        `loop '${loopId}' is not running (${description.status.name.toLowerCase()}); resume it with: ${resumeCommand(loopId, input?.config.workdir)}`,
      );
    }
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new NoSuchLoopError(loopId, loopWorkflowId(loopId));
    throw error;
  }
  return handle;
}

/** The live state of a running loop. */
export async function loopStatus(client: Client, loopId: string): Promise<LoopView> {
  return (await runningLoop(client, loopId)).query(stateQuery);
}

/**
 * A running loop as it looks now: its view (null when no orchestrator worker polls, so nobody
 * can answer) and the queues of the loop no worker polls (orchestrator, lanes, package).
 */
export interface LoopLook {
  readonly view: LoopView | null;
  readonly noPoller: LoopQueue[];
  /** Why the view is null although a worker polled the orchestrator queue lately (it died, or stalls). */
  readonly unanswered?: string;
}

/**
 * How long the state query may take. A live orchestrator answers in milliseconds; one killed a
 * moment ago still shows as a poller for a minute and more, and a query sent to it would wait
 * half a minute for the server to give up.
 */
const STATE_QUERY_DEADLINE_MS = 5_000;

async function lookAt(
  client: Client,
  loopId: string,
  handle: ReturnType<Client['workflow']['getHandle']>,
): Promise<LoopLook> {
  const config = await latestRunConfig(client, loopId);
  const orchestrator = loopQueues([], false);
  const unanswered = async (error: unknown, deadline?: number): Promise<LoopLook> => {
    const noPoller = await queuesWithoutPoller(client, config ? configQueues(config) : orchestrator);
    if ((await queuesWithoutPoller(client, orchestrator)).length > 0) return { view: null, noPoller };
    // A worker polled lately but nobody answered in time: the orchestrator died a moment ago, or stalls.
    if (deadline !== undefined && deadlinePassed(error, deadline))
      return {
        view: null,
        noPoller,
        unanswered: `no orchestrator worker answered its state query within ${STATE_QUERY_DEADLINE_MS / 1000} s (one polled its task queue lately: it may have died a moment ago, or be stalled)`,
      };
    throw error;
  };
  if ((await queuesWithoutPoller(client, orchestrator)).length > 0) return unanswered(new Error('no orchestrator'));
  let view: LoopView;
  const deadline = Date.now() + STATE_QUERY_DEADLINE_MS;
  try {
    view = await client.connection.withDeadline(deadline, () => handle.query(stateQuery));
  } catch (error) {
    return unanswered(error, deadline);
  }
  // A worker whose slots are all taken does not poll until one frees: a lane running as many jobs
  // as it has slots is not asked about while one of its jobs' activities is started and
  // heartbeating (a live worker runs it), nor the package worker while it runs a package.
  const packages = config ? config.commands.package !== null : false;
  const served = async (workflowIds: readonly string[]) =>
    (await Promise.all(workflowIds.map((id) => runsStartedActivity(client, id)))).some(Boolean);
  const lanes = await Promise.all(
    view.lanes.map(async (lane) =>
      lane.busy >= lane.slots &&
      (await served(view.in_flight.filter((flight) => flight.lane === lane.queue).map((flight) => flight.childId)))
        ? null
        : lane.queue,
    ),
  );
  const packaging = packages && (await served([packagingWorkflowId(loopId)]));
  return {
    view,
    noPoller: await queuesWithoutPoller(
      client,
      loopQueues(
        lanes.filter((queue) => queue !== null),
        packages && !packaging,
      ),
    ),
  };
}

/**
 * The generation a running loop is at now, for a command that names the one it means (advance);
 * undefined when nobody answers or it is not running (the command then says why, as before).
 */
export async function currentGeneration(client: Client, loopId: string): Promise<number | undefined> {
  try {
    const state = await loopState(client, loopId);
    return state.kind === 'running' && state.view !== null ? state.view.generation : undefined;
  } catch {
    return undefined;
  }
}

/** The live look at a running loop (see LoopLook); a loop that is not running is an error. */
export async function loopLook(client: Client, loopId: string): Promise<LoopLook> {
  return lookAt(client, loopId, await runningLoop(client, loopId));
}

/** A loop's live state while it runs (view null: no orchestrator worker polls); otherwise how its last run ended. */
export type LoopStatus =
  ({ readonly kind: 'running' } & LoopLook) | { readonly kind: 'not-running'; readonly ended: string };

export async function loopState(client: Client, loopId: string): Promise<LoopStatus> {
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  let status: string;
  try {
    status = (await handle.describe()).status.name;
  } catch (error) {
    if (error instanceof WorkflowNotFoundError) throw new NoSuchLoopError(loopId, loopWorkflowId(loopId));
    throw error;
  }
  if (status !== 'RUNNING') return { kind: 'not-running', ended: `was ${statusInWords(status)}` };
  return { kind: 'running', ...(await lookAt(client, loopId, handle)) };
}

/**
 * The packaging workflow's view of a loop (its running package and MLflow registrations), or null
 * when it is not running or does not answer within a few seconds: `status` does without it.
 */
export async function packagingView(client: Client, loopId: string): Promise<PackagingView | null> {
  try {
    return await client.withDeadline(Date.now() + 5_000, () =>
      client.workflow.getHandle(packagingWorkflowId(loopId)).query(packagingQuery),
    );
  } catch {
    return null;
  }
}

/**
 * End the loop's packaging workflow when it runs with nothing to do (a stopped loop leaves it so):
 * it holds the loop's old folders (`relocate`). One packaging or holding a champion is refused.
 */
export async function endIdlePackaging(client: Client, loopId: string): Promise<void> {
  const handle = client.workflow.getHandle(packagingWorkflowId(loopId));
  const running = await handle.describe().then(
    (description) => description.status.name === 'RUNNING',
    (error: unknown) => {
      if (error instanceof WorkflowNotFoundError) return false;
      throw error;
    },
  );
  if (!running) return;
  const view = await packagingView(client, loopId);
  const busy = view === null ? null : (view.running ?? view.queued);
  if (view === null || busy !== null)
    throw new Error(
      `loop ${loopId}'s packaging workflow ${view === null ? 'does not answer' : `is packaging ${busy?.run_id ?? '?'}`}: ` +
        `wait until it has finished ('champion-loop status ${loopId}' shows it), then relocate. Nothing moved.`,
    );
  await handle.signal(stopNowSignal);
  await handle.result();
}

/**
 * What `status` says of the loop's packaging workflow, from one description of it:
 * - `ended`: why it is not running while the loop is, when someone ended it by hand (terminate,
 *   cancel) or it failed: what it was packaging or had queued waits for a `resume` signal (patch
 *   repackage-on-resume), a stop and start, or the next champion. Null when it runs, never
 *   started, or completed (a stop hands packaging over that way).
 * - `upload`: while the package step waits for the artifact store (loop.yaml artifacts:), what its
 *   last heartbeat said, e.g. the store refusing or not answering. Null otherwise.
 */
export async function packagingLines(
  client: Client,
  loopId: string,
): Promise<{ readonly ended: string | null; readonly upload: string | null }> {
  let description;
  try {
    description = await client.workflow.getHandle(packagingWorkflowId(loopId)).describe();
  } catch {
    return { ended: null, upload: null };
  }
  const status = description.status.name;
  const ended = PACKAGING_ENDED_BY_HAND.includes(status)
    ? `packaging: workflow ${packagingWorkflowId(loopId)} was ${statusInWords(status)}; the next champion starts it ` +
      'again. To package the champion now: temporal workflow signal --workflow-id ' +
      `${loopWorkflowId(loopId)} --name resume (or stop and start the loop)`
    : null;
  return { ended, upload: uploadWaiting(client, await openPayloads(client, description.raw.pendingActivities ?? [])) };
}

/** What the workflow's validator says of an advance without a reason (generation/reports.ts). */
const ADVANCE_NEEDS_REASON = 'advance needs a reason (--reason), e.g. "corpus labels changed"';

/** How long a stop or advance waits for the loop's orchestrator worker to answer. */
const UPDATE_DEADLINE_MS = 30_000;

/**
 * Send a stop or advance as one update: the workflow's validator refuses it with its reason
 * (nothing changes) or it is applied and answers with the loop's view. A loop that does not
 * exist, is not running, or has no worker to answer is a clear error, found out only then.
 */
async function updateLoop(
  client: Client,
  loopId: string,
  what: string,
  send: (handle: ReturnType<Client['workflow']['getHandle']>) => Promise<LoopView>,
  deadlineMs = UPDATE_DEADLINE_MS,
  refusal?: () => string | null,
  retried = false,
): Promise<LoopView> {
  const handle = client.workflow.getHandle(loopWorkflowId(loopId));
  try {
    return await client.withDeadline(Date.now() + deadlineMs, () => send(handle));
  } catch (error) {
    if (error instanceof WorkflowUpdateFailedError) {
      const { cause } = error;
      if (cause instanceof ApplicationFailure && cause.type === UPDATE_REFUSED) throw new Error(cause.message);
      // Not the validator: the update met the generation between two runs (a continue-as-new) and
      // was not applied. Once more, on the run that is current now.
      if (!retried) return updateLoop(client, loopId, what, send, deadlineMs, refusal, true);
      throw new Error(
        `could not ${what} loop '${loopId}': ${cause?.message ?? 'the server gave no reason'}; try again`,
      );
    }
    // The service refused the call itself: seen when the update meets the generation as it
    // continues as new. Once more, on the run that is current by then.
    if (error instanceof ServiceError && !retried) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      return updateLoop(client, loopId, what, send, deadlineMs, refusal, true);
    }
    // No workflow validated it (no such loop, not running, nobody answering): a call that is wrong
    // in itself says so first.
    const wrong = refusal?.();
    if (wrong) throw new Error(wrong);
    // Not found, closed, or unanswered: say which.
    await runningLoop(client, loopId);
    if (!(await hasGeneration(client, loopId))) {
      throw new Error(
        `loop '${loopId}' has no generation to ${what} yet: no orchestrator worker has taken its first step (is 'champion-loop worker orchestrator' running?)`,
      );
    }
    if (error instanceof WorkflowUpdateRPCTimeoutOrCancelledError)
      throw new Error(
        `loop '${loopId}' did not answer the ${what} within ${deadlineMs / 1000}s (is 'champion-loop worker orchestrator' running?)`,
      );
    if (error instanceof ServiceError)
      throw new Error(`could not ${what} loop '${loopId}': ${error.cause?.message ?? error.message}; try again`);
    throw error;
  }
}

/** Stop a loop: gracefully (running work finishes) or at once (running work is cancelled, its subprocesses killed). */
export async function stopLoop(client: Client, loopId: string, now: boolean, deadlineMs?: number): Promise<LoopView> {
  return updateLoop(
    client,
    loopId,
    'stop',
    (handle) => handle.executeUpdate(now ? stopNowUpdate : stopUpdate),
    deadlineMs,
  );
}

/**
 * The incarnation a `start --fresh` gives the loop: one more than its latest run's (history gone:
 * 1, as its old children's histories are gone with it), so no child id of the old loop is used again.
 */
async function freshIncarnation(client: Client, loopId: string): Promise<number> {
  const latest = await startInputOf(client, loopId);
  return latest === null ? 1 : (latest.carry?.incarnation ?? latest.incarnation ?? 1) + 1;
}

/**
 * Whether the loop's current run holds a generation: it took its first step (opening or carrying
 * one), or it continues a loop that had one. Before that an update would wait for a worker.
 */
async function hasGeneration(client: Client, loopId: string): Promise<boolean> {
  const { history } = await client.workflowService.getWorkflowExecutionHistory({
    namespace: client.options.namespace,
    execution: { workflowId: loopWorkflowId(loopId) },
    maximumPageSize: 10,
  });
  const events = await openPayloads(client, history?.events ?? []);
  if (
    events.some((event) => event.eventType === proto.temporal.api.enums.v1.EventType.EVENT_TYPE_WORKFLOW_TASK_COMPLETED)
  )
    return true;
  const input = events[0]?.workflowExecutionStartedEventAttributes?.input?.payloads?.[0];
  const started = input ? defaultPayloadConverter.fromPayload<GenerationInput>(input) : undefined;
  return (started?.carry?.opening?.generation ?? started?.carry?.state.generation ?? 0) >= 1;
}

/**
 * Ask a loop to open its next generation, as one update: the workflow refuses an empty reason, a
 * loop with no generation yet and an advance already pending. Answers the view after the change
 * (its generation still the old one, `advance_reason` set: the next opens before any new job).
 */
export async function advanceLoop(
  client: Client,
  loopId: string,
  reason: string,
  deadlineMs?: number,
  fromGeneration?: number,
  named = false,
): Promise<LoopView> {
  return updateLoop(
    client,
    loopId,
    'advance from',
    (handle) =>
      handle.executeUpdate(advanceUpdate, {
        args: fromGeneration === undefined ? [reason] : [reason, fromGeneration, named],
      }),
    deadlineMs,
    () => (reason.trim() === '' ? ADVANCE_NEEDS_REASON : null),
  );
}
