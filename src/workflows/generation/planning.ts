// What the generation dispatches next: a due reserve check first, then due teacher builds and
// ensembles, then the round queue, planning a round (re-reading the candidates) when it is empty.
import {
  ApplicationFailure,
  isCancellation,
  log,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { inWorkdir, teacherFile, teacherTarget } from '../../config/candidate.js';
import { reserveDue } from '../../ledger/loop-state.js';
import { MANIFEST_NAME } from '../../rules/constants.js';
import { expandGeneration, padGeneration, roundManifestName, runIdFor } from '../../rules/ids.js';
import { trainingSeed } from '../../rules/seeds.js';
import { keptMembers, roundEnsembleRun, teacherEnsembleRun } from '../ensemble-runs.js';
import { splitFailureText } from '../lane-failure.js';
import { CANDIDATES_INVALID } from '../messages.js';
import { foldFinishedRounds, openRound } from '../round-ensembles.js';
import { openRoundProgress, roundFinished } from '../round-progress.js';
import { ROUND } from '../../contract/search-attributes.js';
import { SPLIT_FAILED_MEMO, splitFailedRow } from '../split-failure.js';
import {
  nextTeacherAttempt,
  planTeacherRound,
  reofferTeacher,
  teacherDispatched,
  teacherDue,
  teacherMembers,
} from '../teacher-plan.js';
import type { EnsembleManifest } from '../../activities/types.js';
import type { GenerationActivities } from './activities.js';
import { pausing } from './hand-over.js';
import { ensembleJob, newRunJob, reserveJob, type Job } from './jobs.js';
import { now, type Generation } from './state.js';

/** The next job to dispatch, or null when there is none (the loop is idle). */
export async function nextJob(gen: Generation, steps: GenerationActivities): Promise<Job | null> {
  const reserveBusy = [...gen.inFlight.map((flight) => flight.job), ...gen.queue].some((job) => job.kind === 'reserve');
  if (!reserveBusy && reserveDue(gen.state, gen.settings) && gen.state.champion)
    return reserveJob(gen.state, gen.state.champion);
  reofferOnResume(gen);
  await queueDueBuilds(gen, steps);
  if (gen.builds.length > 0) return dispatched(gen, gen.builds.shift() ?? null);
  // A loop whose rounds keep failing for one reason plans no round while it pauses (generation/hand-over.ts).
  if (gen.queue.length === 0 && pausing(gen)) return null;
  if (gen.queue.length === 0 && !(await planRound(gen, steps))) return null;
  return dispatched(gen, gen.queue.shift() ?? null);
}

/** The job nextJob hands out; a teacher build's attempt is kept in the plan (a re-offer takes the next). */
function dispatched(gen: Generation, job: Job | null): Job | null {
  if (job?.kind === 'teacher' && job.generation === gen.state.generation)
    gen.teacher = teacherDispatched(gen.teacher, job.attempt);
  return job;
}

/** Generations (runs of the workflow) that looked at their teacher plan's resumption already. */
const resumptionSeen = new WeakSet<Generation>();

/**
 * Once per run, on a resumption (a run `champion-loop start` began from a carry; a continue-as-new
 * run is not one): a teacher build offered before and not waiting is offered again, so a build
 * that failed is tried again when its file is still missing (docs/behaviour.md, section 7).
 */
function reofferOnResume(gen: Generation): void {
  if (resumptionSeen.has(gen)) return;
  resumptionSeen.add(gen);
  if (!gen.teacher.offered || workflowInfo().continuedFromExecutionRunId !== undefined) return;
  const waiting = [...gen.builds, ...gen.queue, ...gen.inFlight.map((flight) => flight.job)].some(
    (job) => job.kind === 'teacher' && job.generation === gen.state.generation,
  );
  if (waiting) return;
  gen.teacher = reofferTeacher(gen.teacher, false);
  log.info('teacher build offered again on resumption', { generation: gen.state.generation });
}

/** Re-read the candidates and queue one round: every active candidate trains once with the round's seed. */
async function planRound(gen: Generation, steps: GenerationActivities): Promise<boolean> {
  const { config } = gen;
  const read = await steps.readCandidates({ file: config.candidates, workdir: config.workdir });
  if (read.ok) {
    gen.candidates = read.candidates;
    gen.candidatesError = null;
  } else if (gen.candidates === null) {
    throw ApplicationFailure.nonRetryable(
      `${read.error}\nFix the candidates file and start the loop again.`,
      CANDIDATES_INVALID,
    );
  } else if (gen.candidatesError !== read.error) {
    gen.candidatesError = read.error;
    log.warn('candidates file invalid, keeping the previous list', { error: read.error });
  }
  const all = gen.candidates ?? [];
  const generation = gen.state.generation;
  // Students sit the round out while their teacher file does not exist (each path reported once).
  const targets = all.flatMap((candidate) => {
    const file = teacherFile(candidate, generation, config.workdir);
    return file === null ? [] : [{ name: candidate.name, file }];
  });
  const missing =
    targets.length > 0
      ? await steps.missingFiles({ files: targets.map((target) => target.file), ...storeOf(gen) })
      : [];
  for (const file of missing) {
    if (gen.waitsReported.includes(file)) continue;
    gen.waitsReported.push(file);
    log.info('waiting for teacher', { file });
  }
  const waiting = new Set(targets.filter((target) => missing.includes(target.file)).map((target) => target.name));
  gen.waitingFor = missing;
  const active = all.filter((candidate) => !waiting.has(candidate.name));
  // The reads above await activities: the last run of the round before may have failed meanwhile.
  if (pausing(gen)) return false;
  if (active.length === 0) {
    if (!gen.idle) log.info('no active candidates; waiting');
    gen.idle = true;
    return false;
  }
  gen.idle = false;
  gen.round += 1;
  const round = gen.round;
  upsertSearchAttributes([{ key: ROUND, value: round }]);
  log.info('round start', { generation, round, seed: trainingSeed(round), candidates: active.map((c) => c.name) });
  gen.progress = openRoundProgress(gen.progress, round, active.length);
  gen.roundEnsembles = openRound(gen.roundEnsembles, round);
  const ordinary = active.filter((candidate) => teacherTarget(candidate, generation) === null);
  gen.teacher = planTeacherRound(
    gen.teacher,
    round,
    config.teacher_after_round,
    ordinary.map((candidate) => runIdFor(generation, round, candidate.name)),
  );
  for (const candidate of active) gen.queue.push(newRunJob(generation, round, candidate));
  return true;
}

/** With loop.yaml `artifacts:`: where a file another host made may be found (missingFiles fetches it). */
function storeOf(gen: Generation): {
  store?: { settings: NonNullable<Generation['config']['artifacts']>; loopId: string };
} {
  const settings = gen.config.artifacts;
  return settings === undefined ? {} : { store: { settings, loopId: gen.loopId } };
}

/** Due builds: the teacher build once its runs are final, then due ensembles (docs/behaviour.md, section 7). */
async function queueDueBuilds(gen: Generation, steps: GenerationActivities): Promise<void> {
  const { config, paths } = gen;
  const generation = gen.state.generation;
  if (teacherDue(gen.teacher, gen.round, config.teacher_after_round)) {
    gen.teacher = { ...gen.teacher, offered: true };
    const file = inWorkdir(config.workdir, expandGeneration(config.teacher_path, generation));
    // An existing teacher file means no build.
    if ((await steps.missingFiles({ files: [file], ...storeOf(gen) })).length > 0) {
      gen.builds.push({
        kind: 'teacher',
        jobId: `teacher-g${padGeneration(generation)}`,
        generation,
        members: teacherMembers(gen.teacher),
        attempt: nextTeacherAttempt(gen.teacher),
      });
    }
  }
  if (gen.teacherEnsemble !== null) {
    const members = gen.teacherEnsemble.map(({ files: _files, ...member }) => member);
    const files = gen.teacherEnsemble.flatMap((member) => member.files ?? []);
    gen.teacherEnsemble = null;
    const manifest = await steps.writeEnsembleManifest({
      paths,
      generation,
      name: MANIFEST_NAME,
      members,
      ...(config.artifacts === undefined ? {} : { artifacts: config.artifacts, files }),
    });
    const kept = keptMembers(members, manifest);
    if (enoughMembers(kept, 'teacher-member ensemble', manifest)) {
      gen.builds.push(ensembleJob(teacherEnsembleRun(generation, config.teacher_after_round, manifest, kept, now())));
    }
  }
  const folded = foldFinishedRounds(gen.roundEnsembles, (r) => roundFinished(gen.progress, r, gen.round));
  gen.roundEnsembles = folded.state;
  for (const due of folded.due) {
    // The run row's members are the seed's fields; their files travel in the row's own `files`.
    const members = due.members.map(({ round: _round, files: _files, ...member }) => member);
    const files = due.members.flatMap((member) => member.files ?? []);
    const manifest = await steps.writeEnsembleManifest({
      paths,
      generation,
      name: roundManifestName(due.round),
      members: members.map((member) => ({ config: member.config, checkpoint: member.checkpoint })),
      ...(config.artifacts === undefined ? {} : { artifacts: config.artifacts, files }),
    });
    const kept = keptMembers(members, manifest);
    log.info('round ensemble', { generation, round: due.round, members: kept.length });
    if (enoughMembers(kept, `round ${due.round} ensemble`, manifest)) {
      gen.builds.push(ensembleJob(roundEnsembleRun(generation, due.round, manifest, kept, now())));
    }
  }
}

/**
 * Whether an ensemble that left members out (their files gone) still has two to score; one
 * that has not is not scored, and the log says so. Without members left out, always.
 */
function enoughMembers(kept: readonly unknown[], what: string, manifest: EnsembleManifest): boolean {
  const gone = manifest.left_out ?? [];
  if (gone.length === 0) return true;
  const why = gone.map((member) => member.why).join('; ');
  if (kept.length >= 2) {
    log.warn(`${what}: ${gone.length} members left out`, { why });
    return true;
  }
  log.warn(`${what}: not scored, ${kept.length} of its members left (the others' files are gone)`, { why });
  return false;
}

/**
 * The generation's split, built once; false when the split command fails. A failed split is given
 * up: its row goes to the memo (the ledger reads it from there), and nothing tries it again until
 * `resume`, a stop and start, or an advance (the seed stops with an error there).
 */
export async function ensureSplit(gen: Generation, { buildSplit }: GenerationActivities): Promise<boolean> {
  if (gen.split !== null) return true;
  if (gen.splitFailed !== null) return false;
  const splitSeed = gen.config.base_seed + gen.state.generation;
  try {
    gen.splitError = null;
    gen.split = (
      await buildSplit({
        paths: gen.paths,
        commands: gen.config.commands,
        generation: gen.state.generation,
        splitSeed,
      })
    ).path;
    return true;
  } catch (error) {
    // A cancellation (the loop cancelled by an operator) is not the split failing: it ends the run.
    if (isCancellation(error)) throw error;
    gen.splitError = splitFailureText(error, gen.config.timeouts.split);
    gen.splitFailed = splitFailedRow(gen.state.generation, splitSeed, gen.splitError, now());
    upsertMemo({ [SPLIT_FAILED_MEMO]: gen.splitFailed });
    log.error('split failed; given up until resume, a stop and start, or an advance', { error: gen.splitError });
    return false;
  }
}
