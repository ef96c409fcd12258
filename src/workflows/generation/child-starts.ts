// How each kind of job starts as a child workflow: its id, summary and search attributes (so the
// Web UI reads like the ledger), and its input. One table, one `launch`.
import { log, ParentClosePolicy, startChild, type ChildWorkflowHandle } from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { Workflow } from '@temporalio/common';
import { expandGeneration, runIdFor } from '../../rules/ids.js';
import { trainingSeed } from '../../rules/seeds.js';
import { reserveCheckWorkflowId, teacherBuildWorkflowId, trainingRunWorkflowId } from '../ids.js';
import type { JobInput } from '../job-input.js';
import { ORCHESTRATOR_QUEUE } from '../queues.js';
import { reserveCheck } from '../reserve-check.js';
import { CANDIDATE, GENERATION, LOOP_ID, LOOP_KIND, ROUND } from '../search-attributes.js';
import { teacherBuild } from '../teacher-build.js';
import { trainingRun } from '../training-run.js';
import type { ReserveJob, RunJob, TeacherJob } from './jobs.js';
import { onChildLost } from './reports.js';
import { inWorkdir, now, type Generation } from './state.js';

interface JobByKind {
  run: RunJob;
  teacher: TeacherJob;
  reserve: ReserveJob;
}

interface Started {
  readonly childId: string;
  readonly handle: Promise<ChildWorkflowHandle<Workflow>>;
}

type ChildStarts = { readonly [K in keyof JobByKind]: (gen: Generation, job: JobByKind[K], base: JobInput) => Started };

const common = { taskQueue: ORCHESTRATOR_QUEUE, parentClosePolicy: ParentClosePolicy.ABANDON };

const childStarts: ChildStarts = {
  run: (gen, job, base) => {
    const childId = trainingRunWorkflowId(gen.loopId, job.generation, job.round, job.candidate.name, job.attempt);
    const runId = runIdFor(job.generation, job.round, job.candidate.name);
    const what = job.reportRun ? 'evaluate ensemble' : job.run ? 'evaluate' : 'train + evaluate';
    const handle = startChild(trainingRun, {
      ...common,
      workflowId: childId,
      staticSummary: `${what} ${job.reportRun ? job.jobId : runId} on ${base.lane}`,
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
          plan: { generation: job.generation, round: job.round, seed: trainingSeed(job.round), candidate: job.candidate, runId, split: gen.split ?? '' },
          run: job.run,
          unscored: job.unscored,
          reportRun: job.reportRun === true,
        },
      ],
    });
    return { childId, handle };
  },
  teacher: (gen, job, base) => {
    const childId = teacherBuildWorkflowId(gen.loopId, job.generation, job.attempt);
    const handle = startChild(teacherBuild, {
      ...common,
      workflowId: childId,
      staticSummary: `teacher of generation ${job.generation} from ${job.members.length} runs on ${base.lane}`,
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
        },
      ],
    });
    return { childId, handle };
  },
  reserve: (gen, job, base) => {
    const { champion } = job;
    const childId = reserveCheckWorkflowId(gen.loopId, job.generation, champion.run_id, champion.checkpoint_name, job.testEvals, job.attempt);
    const handle = startChild(reserveCheck, {
      ...common,
      workflowId: childId,
      staticSummary: `reserve check of ${champion.run_id} ${champion.checkpoint_name} after ${job.testEvals} test evals`,
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

function startJob<K extends keyof JobByKind>(gen: Generation, kind: K, job: JobByKind[K], base: JobInput): Started {
  const start: ChildStarts[K] = childStarts[kind];
  return start(gen, job, base);
}

/** Start a job's child on a lane; a child that ends without reporting frees its slot and runs again. */
export function launch(gen: Generation, job: RunJob | TeacherJob | ReserveJob, lane: string): void {
  const { config } = gen;
  const base: JobInput = {
    loopId: gen.loopId,
    parentId: gen.selfId,
    jobId: job.jobId,
    lane,
    paths: gen.paths,
    commands: config.commands,
    timeouts: config.timeouts,
    retries: config.retries,
  };
  const { childId, handle } = startJob(gen, job.kind, job, base);
  gen.inFlight.push({ job, lane, childId, since: now() });
  gen.startsPending += 1;
  log.info('job start', { jobId: job.jobId, kind: job.kind, lane, childId });
  handle.then(
    (started) => {
      gen.startsPending -= 1;
      void started.result().catch((error: unknown) => onChildLost(gen, childId, error));
    },
    (error: unknown) => {
      gen.startsPending -= 1;
      // Already running under this id (started by an earlier run of this workflow): it will report.
      if (error instanceof WorkflowExecutionAlreadyStartedError) return;
      onChildLost(gen, childId, error);
    },
  );
}
