import { createHash } from 'node:crypto';
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { padGeneration } from '../rules/ids.js';
import { readSelection } from '../contract/read.js';
import { activityHooks } from './support/activity-context.js';
import { describeEnd, runLoopStep } from './support/loop-step.js';
import { exists, moveAside } from './support/move-aside.js';
import { logsDir, runDir, scoreCacheArgs, stepLogFile } from './support/paths.js';
import { STEPS, stepLog } from '../contract/steps.js';
import { lineageKey } from './support/teacher-lineage.js';
import type { TeacherInput, TeacherMember, TeacherOutcome } from './types.js';
import type { FileRef } from '../artifacts/file-ref.js';
import { putPathRef } from '../artifacts/file-store.js';
import { uploadStepFiles } from './support/step-files.js';
import { withStepFiles } from './support/run-dir-cache.js';
import { withStore } from './support/store-retry.js';
import { currentStepScope } from './support/step-scope.js';

/** One member scored on the development role: its selected checkpoint and where its report and scores go. */
interface MemberJob {
  readonly member: TeacherMember;
  readonly checkpointName: string;
  readonly report: string;
  readonly scores: string;
}

function sha256(bytes: Buffer | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

/**
 * Builds a generation's in-sample teacher (docs/behaviour.md, teachers and ensembles):
 * every member's selected checkpoint scores the development role with its own config, one
 * single-checkpoint evaluation each (or, opted in, members of one input lineage in one evaluator
 * process with a jobs file); the teacher-scores command averages the
 * margins into a temp file that is renamed into place. Never throws for a failed step: the
 * outcome says `failed` and why, as the `teacher` ledger row records it.
 */
export async function buildTeacher(input: TeacherInput): Promise<TeacherOutcome> {
  const started = new Date().toISOString();
  const { paths, teacherPath } = input;
  const members: TeacherOutcome['members'] = [];
  const done = (status: 'ok' | 'failed', extra: Partial<TeacherOutcome> = {}): TeacherOutcome => ({
    status,
    path: teacherPath,
    members,
    started,
    finished: new Date().toISOString(),
    ...extra,
  });
  const namespace = `teacher-g${padGeneration(input.generation)}`;
  const log = stepLogFile(
    paths.stateDir,
    stepLog(STEPS.buildTeacher.logs.teacher, { generation: padGeneration(input.generation) }),
  );
  try {
    const build = async (): Promise<TeacherOutcome> => {
      const folder = join(dirname(teacherPath), 'members');
      const jobs = await memberJobs(input, folder, members);
      // A member whose report exists was scored by an earlier attempt.
      const pending: MemberJob[] = [];
      for (const job of jobs) {
        if (await exists(job.report)) continue;
        const changed = await configChange(job.member);
        if (changed !== null) return done('failed', { error: changed });
        pending.push(job);
      }
      const failure =
        input.reuseTeacherPreparation === true
          ? await scoreBatched(input, namespace, folder, pending)
          : await scoreEach(input, folder, pending);
      if (failure !== null) return done('failed', { error: failure });
      for (const job of jobs) {
        if (!(await exists(job.report)))
          return done('failed', { error: `no development report for ${job.member.run_id} at ${job.report}` });
      }
      const averaged = await averageScores(input, jobs, log);
      if (averaged !== null) return done('failed', { error: averaged });
      const built = sha256(await readFile(teacherPath));
      if (input.store === undefined) return done('ok', { sha256: built });
      // The students' lanes and the orchestrator (which waits for the file) find it by its path.
      const files = await shareTeacherFile(input.store, teacherPath, log);
      return done('ok', { sha256: built, files });
    };
    // With a store the members trained on other hosts: their run directories and configs are fetched here unless present.
    if (input.store === undefined) return await build();
    return await withStepFiles(
      input.store.settings,
      paths.runsRoot,
      input.members.flatMap((member) => member.files ?? []),
      log,
      build,
    );
  } catch (error) {
    // Cancellation, a lane that stopped under the build (it is sent again, as a training is) and a
    // command that cannot start are not a failed build: the workflow hears them.
    if (
      activityHooks().signal?.aborted ||
      currentStepScope()?.stopping?.aborted === true ||
      (error as { nonRetryable?: boolean }).nonRetryable
    )
      throw error;
    return done('failed', { error: (error as Error).message });
  }
}

/**
 * Each member's development job: its selected checkpoint and where its report and scores go.
 * Every member is listed in the outcome's `members` as its selection is read.
 */
async function memberJobs(
  input: TeacherInput,
  folder: string,
  members: TeacherOutcome['members'][number][],
): Promise<MemberJob[]> {
  const jobs: MemberJob[] = [];
  for (const member of input.members) {
    const selection = await readSelection(join(runDir(input.paths, member.run_id), 'selection.json'));
    const checkpoint = join(runDir(input.paths, member.run_id), selection.checkpoint);
    members.push({
      run_id: member.run_id,
      checkpoint_name: selection.checkpoint,
      config: member.config_path,
      checkpoint,
    });
    jobs.push({
      member,
      checkpointName: selection.checkpoint,
      report: join(folder, `${member.run_id}.dev.json`),
      scores: join(folder, `${member.run_id}.dev.scores.jsonl`),
    });
  }
  return jobs;
}

/** Why a member cannot be scored: its config changed since it trained (sha256 differs); null when unchanged. */
async function configChange(member: TeacherMember): Promise<string | null> {
  const text = await readFile(member.config_path, 'utf8');
  if (sha256(text) === member.config_sha256) return null;
  return `teacher member config ${member.config_path} changed since ${member.run_id} trained (sha256 differs)`;
}

/**
 * Runs the teacher-scores command over every member's development scores into a temp file,
 * renamed into place at the teacher's path once it succeeded. Null when it did; else why not.
 */
async function averageScores(input: TeacherInput, jobs: readonly MemberJob[], log: string): Promise<string | null> {
  const { paths, commands, teacherPath } = input;
  const tmp = `${teacherPath}.tmp`;
  await mkdir(dirname(teacherPath), { recursive: true });
  await moveAside(tmp);
  const result = await runLoopStep(paths, {
    step: 'teacher scores',
    commandKey: 'teacher_scores',
    command: [...commands.teacher_scores, '--inputs', ...jobs.map((job) => job.scores), '--output', tmp],
    log,
  });
  if (result.exitCode !== 0) return `teacher scores ended with ${describeEnd(result)} (log ${log})`;
  await rename(tmp, teacherPath);
  return null;
}

/** Uploads the teacher file by content and records it under its path for the loop's other hosts. */
async function shareTeacherFile(
  store: NonNullable<TeacherInput['store']>,
  teacherPath: string,
  log: string,
): Promise<FileRef[]> {
  const files = await uploadStepFiles(store.settings, [teacherPath], log);
  await withStore(store.settings, log, 'upload', async (objects) => {
    for (const ref of files) await putPathRef(objects, store.loopId, ref);
  });
  return files;
}

/**
 * The seed's default: every member's checkpoint scored on `development` by one single-checkpoint
 * evaluation with its own config (docs/contract.md, evaluate, single form). Null when all ran.
 */
async function scoreEach(input: TeacherInput, folder: string, pending: readonly MemberJob[]): Promise<string | null> {
  const { paths, commands } = input;
  await mkdir(folder, { recursive: true });
  await mkdir(logsDir(paths.stateDir), { recursive: true });
  for (const job of pending) {
    const log = stepLogFile(
      paths.stateDir,
      stepLog(STEPS.buildTeacher.logs.member, {
        generation: padGeneration(input.generation),
        runId: job.member.run_id,
      }),
    );
    await moveAside(job.scores);
    const command = [
      ...commands.evaluate,
      ...['--config', job.member.config_path],
      ...['--checkpoint', join(runDir(paths, job.member.run_id), job.checkpointName)],
      ...['--output', job.report],
      ...['--role', 'development'],
      ...['--scores-output', job.scores],
      ...scoreCacheArgs(paths),
    ];
    const result = await runLoopStep(paths, {
      step: 'teacher evaluate development',
      commandKey: 'evaluate',
      command,
      log,
      need: { member: job.member.run_id },
      again: async () => {
        await moveAside(job.scores);
        return command;
      },
    });
    if (result.exitCode !== 0)
      return `development scoring of ${job.member.run_id} ended with ${describeEnd(result)} (log ${log})`;
  }
  return null;
}

/**
 * The seed's opt-in `--reuse-teacher-preparation` (loop.yaml `reuse_teacher_preparation: true`):
 * members of one input lineage in one evaluator process, a jobs file naming each member's config
 * and its sha256 (docs/contract.md, evaluate, batch form). Null when every process ran.
 */
async function scoreBatched(
  input: TeacherInput,
  namespace: string,
  folder: string,
  pending: readonly MemberJob[],
): Promise<string | null> {
  const { paths, commands } = input;
  const groups = new Map<string, MemberJob[]>();
  const hashes = new Map<string, string>();
  for (const job of pending) {
    const key = await lineageKey(await readFile(job.member.config_path, 'utf8'), paths.workdir, hashes);
    groups.set(key, [...(groups.get(key) ?? []), job]);
  }
  let index = 0;
  for (const group of groups.values()) {
    const jobsPath = join(
      logsDir(paths.stateDir),
      `${namespace}.development.compatible-${String(index).padStart(4, '0')}.jobs.json`,
    );
    const log = stepLogFile(
      paths.stateDir,
      stepLog(STEPS.buildTeacher.logs.compatible, {
        generation: padGeneration(input.generation),
        batch: String(index).padStart(4, '0'),
      }),
    );
    index += 1;
    await mkdir(folder, { recursive: true });
    await mkdir(dirname(jobsPath), { recursive: true });
    const clear = async (): Promise<void> => {
      for (const job of group) await moveAside(job.scores);
    };
    await clear();
    await moveAside(jobsPath);
    const entries = group.map((job) => ({
      config: job.member.config_path,
      config_sha256: job.member.config_sha256,
      checkpoint: join(runDir(paths, job.member.run_id), job.checkpointName),
      output: job.report,
      scores_output: job.scores,
    }));
    await writeFile(jobsPath, `${JSON.stringify(entries, null, 1)}\n`, { flag: 'wx' });
    const first = group[0] as MemberJob;
    const command = [
      ...commands.evaluate,
      '--config',
      first.member.config_path,
      '--role',
      'development',
      '--jobs',
      jobsPath,
      ...scoreCacheArgs(paths),
    ];
    const result = await runLoopStep(paths, {
      step: 'teacher evaluate development',
      commandKey: 'evaluate',
      command,
      log,
      // One process scores the group's members one after another: what the largest of them needs.
      need: 'evaluate',
      again: async () => {
        await clear();
        return command;
      },
    });
    if (result.exitCode !== 0) return `development scoring ended with ${describeEnd(result)} (log ${log})`;
  }
  return null;
}
