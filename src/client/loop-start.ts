// Starting a loop (`start`): started, resumed where it was, or found already running; the
// command that resumes a stopped one.
import { randomUUID } from 'node:crypto';
import {
  WithStartWorkflowOperation,
  WorkflowExecutionAlreadyStartedError,
  WorkflowUpdateFailedError,
  WorkflowUpdateRPCTimeoutOrCancelledError,
  type Client,
  type WorkflowStartOptions,
} from '@temporalio/client';
import type { LoopConfig } from '../config/loop-config.js';
import { generation, type GenerationInput } from '../workflows/generation.js';
import { loopWorkflowId } from '../workflows/ids.js';
import type { LoopView } from '../workflows/loop-view.js';
import { startUpdate, stateQuery } from '../workflows/messages.js';
import { ORCHESTRATOR_QUEUE } from '../workflows/queues.js';
import { GENERATION, LOOP_ID, LOOP_KIND } from '../contract/search-attributes.js';
import { deadlinePassed } from './deadline.js';
import { loopQueues, startInputOf, queuesWithoutPoller } from './pollers.js';
import { redeliverReports, resumptionOf, type Resumption } from './resume.js';
import { seedResumption } from './seed-carry.js';
import { loopIdProblem } from './loop-id.js';
import { relocated, type FolderMove } from './relocation.js';
import { stopFileExists, stopFilePath } from '../activities/support/paths.js';

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
  const resumed: ResumeWithNotes | null = resumption.kind === 'resume' && !options.fresh ? resumption : null;
  const resume = resumed && withRelocation(resumed, options.relocation ?? []);
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

/** A stopped loop's resumption, with the notes `start` prints about it. */
type ResumeWithNotes = Extract<Resumption, { kind: 'resume' }> & { notes?: string[] };

/**
 * The resumption with the folders `relocate` moved: every path the carry holds under them moves
 * with them, and a note says so. Unchanged without moves.
 */
function withRelocation(resumed: ResumeWithNotes, relocation: readonly FolderMove[]): ResumeWithNotes {
  if (relocation.length === 0) return resumed;
  return {
    ...resumed,
    carry: relocated(resumed.carry, relocation),
    notes: [
      ...(resumed.notes ?? []),
      `relocated: ${relocation.map((move) => `${move.field} ${move.from} -> ${move.to}`).join(', ')}`,
    ],
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

/**
 * The incarnation a `start --fresh` gives the loop: one more than its latest run's (history gone:
 * 1, as its old children's histories are gone with it), so no child id of the old loop is used again.
 */
async function freshIncarnation(client: Client, loopId: string): Promise<number> {
  const latest = await startInputOf(client, loopId);
  return latest === null ? 1 : (latest.carry?.incarnation ?? latest.incarnation ?? 1) + 1;
}
