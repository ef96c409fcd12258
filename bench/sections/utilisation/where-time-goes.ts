// Where a dispatch's time goes, from the histories: each run's child workflow timeline, the
// generation's, and the step logs' header lines (written just before a step's program is spawned).
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Client } from '@temporalio/client';
import { runHistories } from '../../../src/ledger-copy/history-runs.js';
import { runIdFor } from '../../../src/rules/ids.js';
import { loopWorkflowId, trainingRunWorkflowId } from '../../../src/workflows/ids.js';
import { dispatchBreakdown, stepBreakdown, type LogHeaders, type StageSamples } from '../../lib/breakdown.js';
import { mapLimit } from '../../lib/context.js';
import { childTimeline, generationTimeline, type ChildTimeline, type HistoryEvent } from '../../lib/history.js';
import type { LoopFolder } from '../../lib/loop-folder.js';
import { jobOfConfig, type TracedJob } from '../../lib/trace.js';
import type { LaneJobs } from './lane-jobs.js';
import { LOOP_ID } from './plan.js';

interface Breakdown {
  readonly samples: StageSamples;
  readonly missing: number;
}

export interface TimeBreakdown {
  /** The generation's runs (continue-as-new chain), each its events. */
  readonly chain: HistoryEvent[][];
  readonly generationEvents: number;
  readonly dispatchStages: Breakdown;
  readonly stepStages: Breakdown;
}

/** The workflow id of a training run's child (attempt 1); '' for a round ensemble. */
function childIdOf(job: TracedJob): string {
  const id = job.kind === 'run' ? jobOfConfig(job.key) : null;
  return id ? trainingRunWorkflowId(LOOP_ID, id.generation, id.round, id.candidate, 1) : '';
}

/** The time of a step log's first header line (`--- <ISO time> <step>: [...]`), written just before the step's program is spawned. */
async function logHeaderMs(file: string): Promise<number | null> {
  const text = await readFile(file, 'utf8').catch(() => '');
  const match = /^--- (\S+) /.exec(text);
  const ms = match ? Date.parse(match[1] as string) : Number.NaN;
  return Number.isNaN(ms) ? null : ms;
}

/** Each training run's child workflow timeline, by workflow id (a history that cannot be fetched is left out). */
async function childTimelines(client: Client, traced: readonly TracedJob[]): Promise<Map<string, ChildTimeline>> {
  const timelines = new Map<string, ChildTimeline>();
  await mapLimit(traced, 8, async (job) => {
    const id = childIdOf(job);
    if (id === '') return;
    const history = await client.workflow
      .getHandle(id)
      .fetchHistory()
      .catch(() => null);
    if (history?.events) timelines.set(id, childTimeline(history.events));
  });
  return timelines;
}

/** Each training run's train and evaluate log headers, by job key. */
async function logHeaders(folder: LoopFolder, traced: readonly TracedJob[]): Promise<Map<string, LogHeaders>> {
  const headers = new Map<string, LogHeaders>();
  await mapLimit(traced, 8, async (job) => {
    const id = job.kind === 'run' ? jobOfConfig(job.key) : null;
    if (!id) return;
    const runId = runIdFor(id.generation, id.round, id.candidate);
    const logs = path.join(folder.config.state_dir, 'logs');
    headers.set(job.key, {
      train: await logHeaderMs(path.join(logs, `${runId}.train.log`)),
      evaluate: await logHeaderMs(path.join(logs, `${runId}.test.eval.log`)),
    });
  });
  return headers;
}

/** The dispatch and train-to-evaluate stages of the run's jobs, from the histories and the step logs. */
export async function whereTheTimeGoes(client: Client, folder: LoopFolder, jobs: LaneJobs): Promise<TimeBreakdown> {
  const { traced, dispatches } = jobs;
  const chain = await runHistories(client, loopWorkflowId(LOOP_ID));
  const generation = generationTimeline(chain);
  const timelines = await childTimelines(client, traced);
  const childOf = (job: TracedJob) => timelines.get(childIdOf(job));
  const headers = await logHeaders(folder, traced);
  const headersOf = (job: TracedJob) => headers.get(job.key);
  return {
    chain,
    generationEvents: chain.reduce((sum, events) => sum + events.length, 0),
    dispatchStages: dispatchBreakdown(dispatches, traced, childOf, childIdOf, generation, headersOf),
    stepStages: stepBreakdown(traced, childOf, headersOf),
  };
}
