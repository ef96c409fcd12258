import { isCancellation, log, workflowInfo } from '@temporalio/workflow';
import type { MemoryWaits, TeacherMember, TeacherOutcome } from '../activities/types.js';
import { onLaneOrThrow } from './lane-step.js';
import type { LoopActivities } from './activity-types.js';
import type { TeacherRow } from '../ledger/rows.js';
import { failureText, laneUnavailable } from './lane-failure.js';
import { COMMAND_NOT_FOUND } from '../contract/failures.js';
import { teacherReportedSignal, type TeacherReport } from './messages.js';
import type { JobInput } from './job-input.js';
import { reportBack } from './report-back.js';
import { markBaseline } from './baseline.js';
import { definedFields } from '../support/defined-fields.js';

export interface TeacherBuildInput extends JobInput {
  readonly generation: number;
  readonly teacherPath: string;
  readonly members: readonly TeacherMember[];
  /** loop.yaml `reuse_teacher_preparation`; absent (older starts): one evaluation per member. */
  readonly reuseTeacherPreparation?: boolean;
}

/**
 * The step on the job's lane: a lane lost under it sends it again apart from its attempts
 * (lane-step.ts; histories from before it: the SDK's retries).
 */
function buildOnLane(
  input: TeacherBuildInput,
  call: (buildTeacher: LoopActivities['buildTeacher']) => Promise<TeacherOutcome>,
): Promise<TeacherOutcome> {
  return onLaneOrThrow(input, 'buildTeacher', `teacher build of generation ${input.generation}`, call, [
    COMMAND_NOT_FOUND,
  ]);
}

/** Build a generation's in-sample teacher on a lane and report the teacher row to the generation. */
export async function teacherBuild(input: TeacherBuildInput): Promise<TeacherReport> {
  markBaseline();
  const deliver = reportBack(input);
  const started = new Date().toISOString();
  let row: TeacherRow | null;
  let memoryWaits: MemoryWaits | undefined;
  try {
    const outcome = await buildOnLane(input, (buildTeacher) =>
      buildTeacher({
        paths: input.paths,
        commands: input.commands,
        generation: input.generation,
        teacherPath: input.teacherPath,
        members: input.members,
        ...(input.reuseTeacherPreparation === true ? { reuseTeacherPreparation: true } : {}),
        ...(input.artifacts === undefined ? {} : { store: { settings: input.artifacts, loopId: input.loopId } }),
        ...definedFields({ laneJob: input.laneJob }),
      }),
    );
    row = {
      type: 'teacher',
      generation: input.generation,
      status: outcome.status,
      path: outcome.path,
      ...definedFields({ sha256: outcome.sha256 }),
      members: outcome.members.map((member) => ({ run_id: member.run_id, checkpoint_name: member.checkpoint_name })),
      started: outcome.started,
      finished: outcome.finished,
      ...definedFields({ files: outcome.files, error: outcome.error }),
    };
    memoryWaits = outcome.memory_waits;
    if (outcome.error) log.warn('teacher build failed', { generation: input.generation, error: outcome.error });
  } catch (error) {
    if (isCancellation(error)) throw error;
    if (laneUnavailable(error)) row = null;
    else {
      log.warn('teacher build failed', { generation: input.generation, error: failureText(error) });
      row = {
        type: 'teacher',
        generation: input.generation,
        status: 'failed',
        path: input.teacherPath,
        members: [],
        started,
        finished: new Date().toISOString(),
        error: failureText(error),
      };
    }
  }
  const report: TeacherReport = {
    childId: workflowInfo().workflowId,
    jobId: input.jobId,
    row,
    ...definedFields({ memoryWaits }),
  };
  await deliver(teacherReportedSignal, report);
  return report;
}
