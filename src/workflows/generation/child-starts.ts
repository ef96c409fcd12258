// How each kind of job starts as a child workflow: its id, summary and search attributes (so the
// Web UI reads like the ledger), and its input. One table, one `launch`.
import { log, ParentClosePolicy, startChild, type ChildWorkflowHandle } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError, WorkflowIdReusePolicy } from '@temporalio/common';
import type { Priority, Workflow } from '@temporalio/common';
import { expandGeneration, runIdFor } from '../../rules/ids.js';
import { trainingSeed } from '../../rules/seeds.js';
import { reserveCheckWorkflowId, teacherBuildWorkflowId, trainingRunWorkflowId } from '../ids.js';
import type { JobInput } from '../job-input.js';
import { gpuHourPrice } from '../lanes.js';
import { ORCHESTRATOR_QUEUE } from '../queues.js';
import { reserveCheck } from '../reserve-check.js';
import { CANDIDATE, GENERATION, LOOP_ID, LOOP_KIND, ROUND } from '../../contract/search-attributes.js';
import { teacherBuild } from '../teacher-build.js';
import { trainingRun } from '../training-run.js';
import type { GenerationActivities } from './activities.js';
import { jobStep, type Job, type ReserveJob, type RunJob, type TeacherJob } from './jobs.js';
import { onChildLost, onReportOf } from './reports.js';
import { adoptChild } from './adoption.js';
import { compareKeyFor } from '../../rules/champion.js';
import { reserveChildDetails, runChildDetails, teacherChildDetails } from './child-details.js';
import { now, type Generation } from './state.js';
import { inWorkdir } from '../../config/candidate.js';
import { laneJobOf } from './lane-jobs.js';
import { loopQueueingOf, stepPriority } from '../step-priority.js';
import { definedFields } from '../../support/defined-fields.js';

interface JobByKind {
  run: RunJob;
  teacher: TeacherJob;
  reserve: ReserveJob;
}

interface Started {
  readonly childId: string;
  readonly handle: Promise<ChildWorkflowHandle<Workflow>>;
}

interface StartOptions {
  readonly taskQueue: string;
  /** The child's place in the orchestrator's queue, and its steps' in their lane's (step-priority.ts). */
  readonly priority: Priority;
  readonly parentClosePolicy: ParentClosePolicy;
  readonly workflowIdReusePolicy?: WorkflowIdReusePolicy;
}

type ChildStarts = {
  readonly [K in keyof JobByKind]: (
    gen: Generation,
    job: JobByKind[K],
    base: JobInput,
    common: StartOptions,
  ) => Started;
};

/** The price of an hour of the run's lane's GPU, when loop.yaml gives one (its row's gpu_usd). */
function priceOf(gen: Generation, lane: string): { usdPerGpuHour?: number } {
  const price = gpuHourPrice(gen.config, lane);
  return definedFields({ usdPerGpuHour: price });
}

const childStarts: ChildStarts = {
  run: (gen, job, base, common) => {
    const childId = trainingRunWorkflowId(
      gen.loopId,
      job.generation,
      job.round,
      job.candidate.name,
      job.attempt,
      gen.incarnation,
    );
    const runId = runIdFor(job.generation, job.round, job.candidate.name);
    const what = job.reportRun ? 'evaluate ensemble' : job.run ? 'evaluate' : 'train + evaluate';
    const handle = startChild(trainingRun, {
      ...common,
      workflowId: childId,
      staticSummary: `${what} ${job.reportRun ? job.jobId : runId} on ${base.lane}`,
      staticDetails: runChildDetails({
        runId,
        generation: job.generation,
        round: job.round,
        seed: trainingSeed(job.round),
        candidate: job.candidate,
        split: gen.split ?? '',
        lane: base.lane,
        attempt: job.attempt,
        run: job.run,
        unscored: job.unscored,
        ensemble: job.reportRun === true,
      }),
      typedSearchAttributes: [
        { key: LOOP_ID, value: gen.loopId },
        { key: LOOP_KIND, value: 'training-run' },
        { key: GENERATION, value: job.generation },
        { key: ROUND, value: job.round },
        { key: CANDIDATE, value: job.candidate.name },
      ],
      args: [
        {
          ...base,
          noCheckpointMarker: gen.config.no_checkpoint_marker,
          ...definedFields({ resumeFlag: gen.config.resume_flag }),
          ...priceOf(gen, base.lane),
          plan: {
            generation: job.generation,
            round: job.round,
            seed: trainingSeed(job.round),
            candidate: job.candidate,
            runId,
            split: gen.split ?? '',
            splitSeed: gen.config.base_seed + job.generation,
          },
          run: job.run,
          unscored: job.unscored,
          reportRun: job.reportRun === true,
        },
      ],
    });
    return { childId, handle };
  },
  teacher: (gen, job, base, common) => {
    const childId = teacherBuildWorkflowId(gen.loopId, job.generation, job.attempt, gen.incarnation);
    const handle = startChild(teacherBuild, {
      ...common,
      workflowId: childId,
      staticSummary: `teacher of generation ${job.generation} from ${job.members.length} runs on ${base.lane}`,
      staticDetails: teacherChildDetails({
        generation: job.generation,
        teacherPath: inWorkdir(gen.config.workdir, expandGeneration(gen.config.teacher_path, job.generation)),
        members: job.members,
        lane: base.lane,
        attempt: job.attempt,
      }),
      typedSearchAttributes: [
        { key: LOOP_ID, value: gen.loopId },
        { key: LOOP_KIND, value: 'teacher-build' },
        { key: GENERATION, value: job.generation },
      ],
      args: [
        {
          ...base,
          generation: job.generation,
          teacherPath: inWorkdir(gen.config.workdir, expandGeneration(gen.config.teacher_path, job.generation)),
          members: job.members,
          reuseTeacherPreparation: gen.config.reuse_teacher_preparation,
        },
      ],
    });
    return { childId, handle };
  },
  reserve: (gen, job, base, common) => {
    const { champion } = job;
    const childId = reserveCheckWorkflowId(
      gen.loopId,
      job.generation,
      champion.run_id,
      champion.checkpoint_name,
      job.testEvals,
      job.attempt,
      gen.incarnation,
    );
    const handle = startChild(reserveCheck, {
      ...common,
      workflowId: childId,
      staticSummary: `reserve check of ${champion.run_id} ${champion.checkpoint_name} after ${job.testEvals} test evals`,
      staticDetails: reserveChildDetails({
        champion,
        testEvals: job.testEvals,
        compared: compareKeyFor(gen.settings.mode),
        lane: base.lane,
        attempt: job.attempt,
      }),
      typedSearchAttributes: [
        { key: LOOP_ID, value: gen.loopId },
        { key: LOOP_KIND, value: 'reserve-check' },
        { key: GENERATION, value: job.generation },
      ],
      args: [{ ...base, champion, testEvals: job.testEvals }],
    });
    return { childId, handle };
  },
};

function startJob<K extends keyof JobByKind>(
  gen: Generation,
  kind: K,
  job: JobByKind[K],
  base: JobInput,
  common: StartOptions,
): Started {
  const start: ChildStarts[K] = childStarts[kind];
  return start(gen, job, base, common);
}

/**
 * A child already started under this id (a reset replayed the generation's starts) is adopted:
 * it reports by signal, and the start is settled once it is adopted.
 */
async function settleStartedChild(
  gen: Generation,
  job: Job,
  childId: string,
  activities: GenerationActivities,
): Promise<void> {
  try {
    await adoptChild(gen, job, childId, activities);
  } finally {
    gen.startsPending -= 1;
  }
}

/** The kind of step a child starts with: a training run that only evaluates (a retry, an ensemble) waits as an evaluation. */
/**
 * Start a job's child on a lane. Its result is its report; a child that ends without reporting
 * frees its slot and runs again.
 */
export function launch(gen: Generation, job: Job, lane: string, activities: GenerationActivities): void {
  const { config } = gen;
  const base: JobInput = {
    loopId: gen.loopId,
    ...(gen.incarnation > 1 ? { incarnation: gen.incarnation } : {}),
    parentId: gen.selfId,
    jobId: job.jobId,
    lane,
    paths: gen.paths,
    commands: config.commands,
    timeouts: config.timeouts,
    retries: config.retries,
    reportBy: 'completion',
    laneJob: laneJobOf(gen, job),
    ...loopQueueingOf(config),
    ...definedFields({ artifacts: config.artifacts }),
    ...(gen.settings.pairedAlpha === undefined
      ? {}
      : { itemErrors: gen.settings.mode === 'band-decisions' ? ('decided' as const) : ('result' as const) }),
  };
  // Children are never started twice under one id: one already there (a reset replays the
  // generation's starts) is asked what became of it instead.
  const common: StartOptions = {
    taskQueue: ORCHESTRATOR_QUEUE,
    priority: stepPriority(gen.loopId, jobStep(job), base),
    parentClosePolicy: ParentClosePolicy.ABANDON,
    workflowIdReusePolicy: WorkflowIdReusePolicy.REJECT_DUPLICATE,
  };
  const { childId, handle } = startJob(gen, job.kind, job, base, common);
  gen.inFlight.push({ job, lane, childId, since: now(), byCompletion: true });
  gen.startsPending += 1;
  log.info('job start', { jobId: job.jobId, kind: job.kind, lane, childId });
  handle.then(
    (started) => {
      gen.startsPending -= 1;
      const lost = (error: unknown) => onChildLost(gen, childId, error);
      void started.result().then((report) => onReportOf(gen, job.kind, 'completion', report), lost);
    },
    (error: unknown) => {
      if (error instanceof WorkflowExecutionAlreadyStartedError)
        return void settleStartedChild(gen, job, childId, activities);
      gen.startsPending -= 1;
      onChildLost(gen, childId, error);
    },
  );
}
