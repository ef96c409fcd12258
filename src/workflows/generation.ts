// One generation of a champion loop: a fresh split, rounds of training runs dispatched to GPU
// lanes as child workflows, the champion and Pareto front folded from their eval rows, reserve
// checks when the test set looks saturated, and continue-as-new into the next generation.
// Read SPEC.md sections 3-6 and 9 beside this file; the rules themselves live in src/rules.
import {
  ApplicationFailure,
  CancellationScope,
  condition,
  continueAsNew,
  getExternalWorkflowHandle,
  log,
  ParentClosePolicy,
  proxyActivities,
  setHandler,
  startChild,
  upsertMemo,
  upsertSearchAttributes,
  workflowInfo,
} from '@temporalio/workflow';
import { WorkflowExecutionAlreadyStartedError } from '@temporalio/common';
import type { LoopActivities } from './activity-types.js';
import type { Candidate, LoopPaths, PackageChampion, TeacherMember } from '../activities/types.js';
import { teacherTarget } from '../config/candidate.js';
import { durationMs } from '../config/duration.js';
import type { LoopConfig } from '../config/loop-config.js';
import {
  generationRow,
  initialLoopState,
  recordRow,
  reserveDue,
  stateJson,
  foldSettingsOf,
  type LoopState,
} from '../ledger/loop-state.js';
import { foldAdvance, foldReserveReport, foldRunReport, type Folded } from '../ledger/report-fold.js';
import type { GenerationRow, RunRow } from '../ledger/rows.js';
import { MANIFEST_NAME } from '../rules/constants.js';
import { expandGeneration, padGeneration, roundManifestName, runIdFor } from '../rules/ids.js';
import { trainingSeed } from '../rules/seeds.js';
import type { EvalRow } from '../rules/types.js';
import { teacherEnsembleRun, roundEnsembleRun } from './ensemble-runs.js';
import { loopWorkflowId, packagingWorkflowId, reserveCheckWorkflowId, teacherBuildWorkflowId, trainingRunWorkflowId } from './ids.js';
import { failureText } from './lane-failure.js';
import { lanesOf, pickLane } from './lanes.js';
import type { LoopView } from './loop-view.js';
import {
  advanceSignal,
  reserveReportedSignal,
  runReportedSignal,
  stateQuery,
  stopNowSignal,
  stopSignal,
  teacherReportedSignal,
  type ReserveReport,
  type RunReport,
  type TeacherReport,
} from './messages.js';
import { ORCHESTRATOR_QUEUE } from './queues.js';
import { advanceReasonOf, isReserveReport, isRunReport, isTeacherReport } from './report-shapes.js';
import { reserveCheck } from './reserve-check.js';
import { addMember, emptyRoundEnsembles, foldFinishedRounds, openRound, type EnsembleMember, type RoundEnsembleState } from './round-ensembles.js';
import { openRoundProgress, roundFinished, runFinal, type RoundProgress } from './round-progress.js';
import { teacherBuild } from './teacher-build.js';
import { emptyTeacherPlan, planTeacherRound, teacherDue, teacherMembers, teacherRunFinal, type TeacherPlan } from './teacher-plan.js';
import { CANDIDATE, CHAMPION, GENERATION, LOOP_ID, LOOP_KIND, ROUND } from './search-attributes.js';
import { trainingRun } from './training-run.js';

/**
 * A training run to dispatch: new, or trained already with evaluations left (a retry elsewhere),
 * or a synthetic ensemble run (its run row made here, only evaluations to do).
 */
export interface RunJob {
  readonly kind: 'run';
  readonly jobId: string;
  readonly generation: number;
  readonly round: number;
  readonly candidate: Candidate;
  readonly attempt: number;
  readonly run: RunRow | null;
  readonly unscored: string[] | null;
  readonly preferredLane: string | null;
  /** An ensemble's run row is new to the ledger: the child reports it with its evals. */
  readonly reportRun?: boolean;
  /** What training selected, kept for an evaluation-only retry (whose report cannot know it) for the round ensembles. */
  readonly selected?: RunReport['selected'];
}

/** The generation's teacher build. */
export interface TeacherJob {
  readonly kind: 'teacher';
  readonly jobId: string;
  readonly generation: number;
  readonly members: TeacherMember[];
  readonly attempt: number;
}

/** The champion scored on reserve, as it was when the check became due. */
export interface ReserveJob {
  readonly kind: 'reserve';
  readonly jobId: string;
  readonly generation: number;
  readonly champion: EvalRow;
  readonly testEvals: number;
  readonly attempt: number;
}

export type Job = RunJob | ReserveJob | TeacherJob;

/** A job running on a lane as a child workflow. */
export interface InFlight {
  readonly job: Job;
  readonly lane: string;
  readonly childId: string;
  readonly since: string;
}

/** Everything one run of the generation workflow hands the next (continue-as-new). */
export interface GenerationCarry {
  readonly state: LoopState;
  /** The generation this run opens; null when it continues one mid-way. */
  readonly opening: GenerationRow | null;
  readonly split: string | null;
  readonly round: number;
  readonly queue: Job[];
  readonly inFlight: InFlight[];
  readonly candidates: Candidate[] | null;
  readonly candidatesError: string | null;
  readonly lanesDownUntil: Record<string, number>;
  readonly stopping: boolean;
  /** Runs of each round not final yet: a round is finished when it and all before it are done. */
  readonly progress: RoundProgress;
  readonly teacher: TeacherPlan;
  /** Members of the teacher-member ensemble, set by a successful build until it is dispatched. */
  readonly teacherEnsemble: { config: string; checkpoint: string }[] | null;
  readonly roundEnsembles: RoundEnsembleState;
  /** Teacher files students wait for, each reported once per generation. */
  readonly waitsReported: string[];
  /** New champions not yet handed to packaging (a stop at once leaves them for the resumption). */
  readonly unpackaged: PackageChampion[];
}

/** What a generation workflow returns when the loop stops: its last state, and how to resume it. */
export interface GenerationResult {
  readonly view: LoopView;
  /** Start the loop again with this carry to go on where it stopped (`champion-loop start` does). */
  readonly resume: GenerationCarry;
}

export interface GenerationInput {
  readonly loopId: string;
  readonly config: LoopConfig;
  /** Absent on the loop's very first start. */
  readonly carry?: GenerationCarry;
}

/** How long an idle loop (no active candidates, or the split failing) waits before it looks again. */
const IDLE_POLL_MS = 60_000;

function pathsOf(config: LoopConfig): LoopPaths {
  return {
    workdir: config.workdir,
    stateDir: config.state_dir,
    runsRoot: config.runs_root,
    dataRoot: config.data_root,
    scoreCacheDir: config.score_cache_dir,
  };
}

/** The champion fields packaging needs. */
function packageChampionOf(row: EvalRow, requested: string): PackageChampion {
  return {
    generation: row.generation,
    run_id: row.run_id,
    epoch: row.epoch,
    checkpoint_name: row.checkpoint_name,
    checkpoint: row.checkpoint,
    config_path: row.config_path,
    eval_json: row.eval_json,
    ...(row.manifest === undefined ? {} : { manifest: row.manifest }),
    requested,
  };
}

const now = (): string => new Date().toISOString();

/** What a generation starts with for rounds, its teacher and its ensembles. */
function freshGenerationPlans(): Pick<GenerationCarry, 'progress' | 'teacher' | 'teacherEnsemble' | 'roundEnsembles' | 'waitsReported'> {
  return { progress: {}, teacher: emptyTeacherPlan, teacherEnsemble: null, roundEnsembles: emptyRoundEnsembles, waitsReported: [] };
}

/** A path as the loop's subprocesses see it: relative ones resolve against the workdir. */
function inWorkdir(workdir: string, file: string): string {
  return file.startsWith('/') ? file : `${workdir}/${file}`;
}

/** The generation workflow: `champion-loop/<loop>`, one run per generation (and more when history grows). */
export async function generation(input: GenerationInput): Promise<GenerationResult> {
  const { loopId, config } = input;
  const settings = foldSettingsOf(config);
  const paths = pathsOf(config);
  const lanes = lanesOf(config);
  const selfId = loopWorkflowId(loopId);
  const carry: GenerationCarry = input.carry ?? {
    state: initialLoopState(),
    opening: generationRow(initialLoopState(), 'initial', config.base_seed, workflowInfo().runStartTime.toISOString()),
    split: null,
    round: 0,
    queue: [],
    inFlight: [],
    candidates: null,
    candidatesError: null,
    lanesDownUntil: {},
    stopping: false,
    ...freshGenerationPlans(),
    unpackaged: [],
  };

  let state = carry.state;
  // The generation opens before any handler runs: a signal delivered with the run's first task
  // (an advance sent before a worker picked the run up) applies to the opened generation, as the
  // ledger exporter folds it, instead of being wiped by the opening.
  if (carry.opening) state = recordRow(state, carry.opening, settings).state;
  let split = carry.split;
  let round = carry.round;
  let candidates = carry.candidates;
  let candidatesError = carry.candidatesError;
  let stopping = carry.stopping;
  let stopNow = false;
  let splitError: string | null = null;
  let idle = false;
  let dirty = false;
  // Children this run asked to start that have not started yet. The run must not end before they
  // have: the service drops the start of a child whose parent closed first (ABANDON or not).
  let startsPending = 0;
  const queue: Job[] = [...carry.queue];
  const inFlight: InFlight[] = [...carry.inFlight];
  /** Jobs a stop at once cancelled (this run ends right after: never carried). */
  const cancelling: InFlight[] = [];
  const lanesDownUntil: Record<string, number> = { ...carry.lanesDownUntil };
  const packagingOutbox: PackageChampion[] = [...(carry.unpackaged ?? [])];
  let progress = carry.progress ?? {};
  let teacher = carry.teacher ?? emptyTeacherPlan;
  let teacherEnsemble = carry.teacherEnsemble ?? null;
  let roundEnsembles = carry.roundEnsembles ?? emptyRoundEnsembles;
  const waitsReported: string[] = [...(carry.waitsReported ?? [])];
  /** Teacher files the students of the last planning wait for (an idle loop watches them). */
  let waitingFor: string[] = [];
  /** Due teacher builds and ensembles: dispatched before the round queue. */
  const builds: Job[] = [];

  const cpu = proxyActivities<LoopActivities>({
    taskQueue: ORCHESTRATOR_QUEUE,
    startToCloseTimeout: '5 minutes',
    retry: { maximumAttempts: 5 },
  });
  const idleWatch = proxyActivities<LoopActivities>({
    taskQueue: ORCHESTRATOR_QUEUE,
    startToCloseTimeout: '70 minutes',
    heartbeatTimeout: '1 minute',
    retry: { maximumAttempts: 3 },
  });
  const splitActivity = proxyActivities<LoopActivities>({
    taskQueue: ORCHESTRATOR_QUEUE,
    startToCloseTimeout: config.timeouts.split,
    heartbeatTimeout: config.timeouts.heartbeat,
    retry: { maximumAttempts: 2, nonRetryableErrorTypes: ['CommandNotFound'] },
  });

  /** Take a fold's result: its state, and its new champions go to packaging. */
  const take = (folded: Folded): void => {
    state = folded.state;
    for (const champion of folded.newChampions) {
      log.info('new champion', { generation: champion.generation, runId: champion.run_id, checkpoint: champion.checkpoint_name, result: champion.result });
      if (config.commands.package) packagingOutbox.push(packageChampionOf(champion, champion.finished));
    }
  };

  const takeFlight = (childId: string): InFlight | undefined => {
    const index = inFlight.findIndex((flight) => flight.childId === childId);
    return index < 0 ? undefined : inFlight.splice(index, 1)[0];
  };

  /**
   * The job a child's report is for: in flight, or cancelled by a stop at once whose cancellation
   * the report beat. Such a report counts (the ledger exporter counts every report of a child that
   * was started and not lost), and its job no longer waits in the queue for the resumption.
   */
  const takeReported = (childId: string): InFlight | undefined => {
    const flight = takeFlight(childId);
    const index = flight ? -1 : cancelling.findIndex((cancelled) => cancelled.childId === childId);
    if (index < 0) return flight;
    const late = cancelling.splice(index, 1)[0] as InFlight;
    const queued = queue.findIndex((job) => job.kind === late.job.kind && job.jobId === late.job.jobId && job.attempt === late.job.attempt + 1);
    if (queued >= 0) queue.splice(queued, 1);
    return late;
  };

  /** An ordinary run (or a student) is final: its round progresses, the teacher plan and the round ensembles learn of it. */
  function runIsFinal(job: RunJob, report: Pick<RunReport, 'run' | 'selected'>): void {
    const run = report.run ?? job.run;
    if (run?.status === 'ensemble' || job.generation !== state.generation) return;
    progress = runFinal(progress, job.round);
    if (run) teacher = teacherRunFinal(teacher, run);
    // An evaluation-only retry reports no selection: the job kept the one its training reported.
    const selected = report.selected ?? job.selected ?? null;
    if (run?.status === 'trained' && selected) {
      const member: EnsembleMember = {
        run_id: run.run_id,
        checkpoint_name: selected.checkpoint,
        config: run.config_path,
        checkpoint: `${paths.runsRoot}/${run.run_id}/${selected.checkpoint}`,
        validation_gate_auc: selected.validationGateAuc,
        validation_fail_to_pass: selected.falseNegatives ?? 0,
        round: run.round,
      };
      roundEnsembles = addMember(roundEnsembles, member);
    }
  }

  /** A signal whose payload lacks the shape its handler reads (sent by hand): logged, never folded. */
  const ignoreMalformed = (signal: string, input: unknown): void => {
    log.warn('ignoring a malformed signal', { signal, input: JSON.stringify(input ?? null).slice(0, 200) });
  };

  const laneDown = (lane: string): void => {
    lanesDownUntil[lane] = Date.now() + durationMs(config.timeouts.schedule_to_start);
    log.warn('lane did not start work in time; sending its jobs elsewhere for a while', { lane });
  };

  setHandler(runReportedSignal, (report: RunReport) => {
    if (!isRunReport(report)) return ignoreMalformed(runReportedSignal.name, report);
    const flight = takeReported(report.childId);
    // Reports only count from children this loop waits for, so none is counted twice.
    if (!flight || flight.job.kind !== 'run') return;
    take(foldRunReport(state, report, settings));
    if (!report.laneUnavailable) runIsFinal(flight.job, report);
    if (report.laneUnavailable) {
      laneDown(flight.lane);
      const run = report.run ?? flight.job.run;
      queue.unshift({
        ...flight.job,
        attempt: flight.job.attempt + 1,
        run,
        unscored: run ? report.unscored : null,
        preferredLane: null,
        // A run row already reported is not reported again.
        reportRun: flight.job.reportRun === true && report.run === null,
        selected: report.selected ?? flight.job.selected ?? null,
      });
    }
    dirty = true;
  });

  setHandler(teacherReportedSignal, (report: TeacherReport) => {
    if (!isTeacherReport(report)) return ignoreMalformed(teacherReportedSignal.name, report);
    const flight = takeReported(report.childId);
    if (!flight || flight.job.kind !== 'teacher') return;
    if (report.row === null) {
      laneDown(flight.lane);
      queue.unshift({ ...flight.job, attempt: flight.job.attempt + 1 });
    } else {
      state = recordRow(state, report.row, settings).state;
      log.info('teacher built', { generation: report.row.generation, status: report.row.status, members: report.row.members.length });
      // Right after a successful build its members are scored as one ensemble on the test role.
      if (report.row.status === 'ok' && report.row.generation === state.generation) {
        const configs = new Map(flight.job.members.map((member) => [member.run_id, member.config_path]));
        teacherEnsemble = report.row.members.map((member) => ({
          config: configs.get(member.run_id) ?? '',
          checkpoint: `${paths.runsRoot}/${member.run_id}/${member.checkpoint_name}`,
        }));
      }
    }
    dirty = true;
  });

  setHandler(reserveReportedSignal, (report: ReserveReport) => {
    if (!isReserveReport(report)) return ignoreMalformed(reserveReportedSignal.name, report);
    const flight = takeReported(report.childId);
    if (!flight || flight.job.kind !== 'reserve') return;
    if (report.reserve === null) {
      laneDown(flight.lane);
      queue.unshift({ ...flight.job, attempt: flight.job.attempt + 1 });
    } else {
      take(foldReserveReport(state, { ...report, reserve: report.reserve }, settings));
    }
    dirty = true;
  });

  setHandler(advanceSignal, (reason: unknown) => {
    if (typeof reason !== 'string') log.warn('advance signal without a text reason; advancing as requested', { input: JSON.stringify(reason ?? null).slice(0, 200) });
    state = foldAdvance(state, advanceReasonOf(reason));
    dirty = true;
  });
  setHandler(stopSignal, () => {
    stopping = true;
    dirty = true;
  });
  setHandler(stopNowSignal, () => {
    stopNow = true;
    stopping = true;
    dirty = true;
  });

  const view = (): LoopView => {
    const busy = busyLanes();
    return {
      ...stateJson(state, paths.stateDir, now()),
      loop_id: loopId,
      round,
      stopping,
      split_ready: split !== null,
      queued: queue.length + builds.length,
      in_flight: inFlight.map((flight) => ({
        jobId: flight.job.jobId,
        kind: flight.job.kind,
        childId: flight.childId,
        lane: flight.lane,
        since: flight.since,
      })),
      lanes: lanes.map((lane) => {
        const downUntil = lanesDownUntil[lane.queue] ?? 0;
        return {
          queue: lane.queue,
          slots: lane.slots,
          busy: busy.get(lane.queue) ?? 0,
          down_until: downUntil > Date.now() ? new Date(downUntil).toISOString() : null,
        };
      }),
      candidates: (candidates ?? []).map((candidate) => candidate.name),
      candidates_error: candidatesError,
      split_error: splitError,
      idle,
    };
  };
  setHandler(stateQuery, view);

  function busyLanes(): Map<string, number> {
    const busy = new Map<string, number>();
    for (const flight of inFlight) busy.set(flight.lane, (busy.get(flight.lane) ?? 0) + 1);
    return busy;
  }

  /** Re-read the candidates and queue one round: every active candidate trains once with the round's seed. */
  async function planRound(): Promise<boolean> {
    const read = await cpu.readCandidates({ file: config.candidates, workdir: config.workdir });
    if (read.ok) {
      candidates = read.candidates;
      candidatesError = null;
    } else if (candidates === null) {
      throw ApplicationFailure.nonRetryable(`${read.error}\nFix the candidates file and start the loop again.`, 'CandidatesInvalid');
    } else if (candidatesError !== read.error) {
      candidatesError = read.error;
      log.warn('candidates file invalid, keeping the previous list', { error: read.error });
    }
    const all = candidates ?? [];
    // Students sit the round out while their teacher file does not exist (each path reported once).
    const targets = all.flatMap((candidate) => {
      const target = teacherTarget(candidate, state.generation);
      return target === null ? [] : [{ name: candidate.name, file: inWorkdir(config.workdir, target) }];
    });
    const missing = targets.length > 0 ? await cpu.missingFiles({ files: targets.map((target) => target.file) }) : [];
    for (const file of missing) {
      if (waitsReported.includes(file)) continue;
      waitsReported.push(file);
      log.info('waiting for teacher', { file });
    }
    const waiting = new Set(targets.filter((target) => missing.includes(target.file)).map((target) => target.name));
    waitingFor = missing;
    const active = all.filter((candidate) => !waiting.has(candidate.name));
    if (active.length === 0) {
      if (!idle) log.info('no active candidates; waiting');
      idle = true;
      return false;
    }
    idle = false;
    round += 1;
    upsertSearchAttributes([{ key: ROUND, value: round }]);
    log.info('round start', { generation: state.generation, round, seed: trainingSeed(round), candidates: active.map((c) => c.name) });
    progress = openRoundProgress(progress, round, active.length);
    roundEnsembles = openRound(roundEnsembles, round);
    teacher = planTeacherRound(
      teacher,
      round,
      config.teacher_after_round,
      active.filter((candidate) => teacherTarget(candidate, state.generation) === null).map((candidate) => runIdFor(state.generation, round, candidate.name)),
    );
    for (const candidate of active) {
      queue.push({
        kind: 'run',
        jobId: runIdFor(state.generation, round, candidate.name),
        generation: state.generation,
        round,
        candidate,
        attempt: 1,
        run: null,
        unscored: null,
        preferredLane: null,
      });
    }
    return true;
  }

  /** The next job to dispatch: a due reserve check first, then the queue, planning a round when it is empty. */
  async function nextJob(): Promise<Job | null> {
    const reserveBusy = [...inFlight.map((flight) => flight.job), ...queue].some((job) => job.kind === 'reserve');
    if (!reserveBusy && reserveDue(state, settings) && state.champion) {
      const champion = state.champion;
      return {
        kind: 'reserve',
        jobId: `reserve-${champion.run_id}-${champion.checkpoint_name}-n${state.testEvals}`,
        generation: state.generation,
        champion,
        testEvals: state.testEvals,
        attempt: 1,
      };
    }
    await queueDueBuilds();
    if (builds.length > 0) return builds.shift() ?? null;
    if (queue.length === 0 && !(await planRound())) return null;
    return queue.shift() ?? null;
  }

  /** An ensemble's synthetic run, ready to be scored on the test role like a checkpoint. */
  function ensembleJob(run: RunRow): RunJob {
    return {
      kind: 'run',
      jobId: run.run_id,
      generation: run.generation,
      round: run.round,
      candidate: { name: run.run_id, base_config: '', overrides: {} },
      attempt: 1,
      run,
      unscored: [...run.checkpoints],
      preferredLane: null,
      reportRun: true,
    };
  }

  /** The seed's `due_builds`: the teacher build once its runs are final, then due ensembles. */
  async function queueDueBuilds(): Promise<void> {
    const generation = state.generation;
    if (teacherDue(teacher, round, config.teacher_after_round)) {
      teacher = { ...teacher, offered: true };
      const file = inWorkdir(config.workdir, expandGeneration(config.teacher_path, generation));
      // An existing teacher file means no build.
      if ((await cpu.missingFiles({ files: [file] })).length > 0) {
        builds.push({ kind: 'teacher', jobId: `teacher-g${padGeneration(generation)}`, generation, members: teacherMembers(teacher), attempt: 1 });
      }
    }
    if (teacherEnsemble !== null) {
      const members = teacherEnsemble;
      teacherEnsemble = null;
      const manifest = await cpu.writeEnsembleManifest({ paths, generation, name: MANIFEST_NAME, members });
      builds.push(ensembleJob(teacherEnsembleRun(generation, config.teacher_after_round, manifest, members, now())));
    }
    const folded = foldFinishedRounds(roundEnsembles, (r) => roundFinished(progress, r, round));
    roundEnsembles = folded.state;
    for (const due of folded.due) {
      const members = due.members.map(({ round: _round, ...member }) => member);
      const manifest = await cpu.writeEnsembleManifest({
        paths,
        generation,
        name: roundManifestName(due.round),
        members: members.map((member) => ({ config: member.config, checkpoint: member.checkpoint })),
      });
      log.info('round ensemble', { generation, round: due.round, members: members.length });
      builds.push(ensembleJob(roundEnsembleRun(generation, due.round, manifest, members, now())));
    }
  }

  async function ensureSplit(): Promise<boolean> {
    if (split !== null) return true;
    try {
      splitError = null;
      split = (await splitActivity.buildSplit({ paths, commands: config.commands, generation: state.generation, splitSeed: config.base_seed + state.generation })).path;
      return true;
    } catch (error) {
      splitError = failureText(error);
      log.error('split generation failed; trying again after a pause', { error: splitError });
      idle = true;
      return false;
    }
  }

  function launch(job: Job, lane: string): void {
    const common = {
      taskQueue: ORCHESTRATOR_QUEUE,
      parentClosePolicy: ParentClosePolicy.ABANDON,
    };
    const base = { loopId, parentId: selfId, jobId: job.jobId, lane, paths, commands: config.commands, timeouts: config.timeouts, retries: config.retries };
    let childId: string;
    let started: Promise<unknown>;
    if (job.kind === 'run') {
      childId = trainingRunWorkflowId(loopId, job.generation, job.round, job.candidate.name, job.attempt);
      const runId = runIdFor(job.generation, job.round, job.candidate.name);
      started = startChild(trainingRun, {
        ...common,
        workflowId: childId,
        staticSummary: `${job.reportRun ? 'evaluate ensemble' : job.run ? 'evaluate' : 'train + evaluate'} ${job.reportRun ? job.jobId : runId} on ${lane}`,
        typedSearchAttributes: [
          { key: LOOP_ID, value: loopId },
          { key: LOOP_KIND, value: 'training-run' },
          { key: GENERATION, value: job.generation },
          { key: ROUND, value: job.round },
          { key: CANDIDATE, value: job.candidate.name },
        ],
        args: [
          {
            ...base,
            noCheckpointMarker: config.no_checkpoint_marker,
            plan: { generation: job.generation, round: job.round, seed: trainingSeed(job.round), candidate: job.candidate, runId, split: split ?? '' },
            run: job.run,
            unscored: job.unscored,
            reportRun: job.reportRun === true,
          },
        ],
      });
    } else if (job.kind === 'teacher') {
      childId = teacherBuildWorkflowId(loopId, job.generation, job.attempt);
      started = startChild(teacherBuild, {
        ...common,
        workflowId: childId,
        staticSummary: `teacher of generation ${job.generation} from ${job.members.length} runs on ${lane}`,
        typedSearchAttributes: [
          { key: LOOP_ID, value: loopId },
          { key: LOOP_KIND, value: 'teacher-build' },
          { key: GENERATION, value: job.generation },
        ],
        args: [
          {
            ...base,
            generation: job.generation,
            teacherPath: inWorkdir(config.workdir, expandGeneration(config.teacher_path, job.generation)),
            members: job.members,
          },
        ],
      });
    } else {
      childId = reserveCheckWorkflowId(loopId, job.generation, job.champion.run_id, job.champion.checkpoint_name, job.testEvals, job.attempt);
      started = startChild(reserveCheck, {
        ...common,
        workflowId: childId,
        staticSummary: `reserve check of ${job.champion.run_id} ${job.champion.checkpoint_name} after ${job.testEvals} test evals`,
        typedSearchAttributes: [
          { key: LOOP_ID, value: loopId },
          { key: LOOP_KIND, value: 'reserve-check' },
          { key: GENERATION, value: job.generation },
        ],
        args: [{ ...base, champion: job.champion, testEvals: job.testEvals }],
      });
    }
    inFlight.push({ job, lane, childId, since: now() });
    startsPending += 1;
    log.info('job start', { jobId: job.jobId, kind: job.kind, lane, childId });
    started.then(
      (handle) => {
        startsPending -= 1;
        // A child that ends without reporting (terminated by hand, say) frees its slot and runs again.
        void (handle as { result(): Promise<unknown> }).result().catch((error: unknown) => lost(childId, error));
      },
      (error: unknown) => {
        startsPending -= 1;
        // Already running under this id (started by an earlier run of this workflow): it will report.
        if (error instanceof WorkflowExecutionAlreadyStartedError) return;
        lost(childId, error);
      },
    );
  }

  function lost(childId: string, error: unknown): void {
    const flight = takeFlight(childId);
    if (!flight) return;
    log.warn('child ended without a report; the job runs again', { childId, error: failureText(error) });
    if (flight.job.attempt < 3) queue.unshift({ ...flight.job, attempt: flight.job.attempt + 1 });
    else {
      log.error('giving up on a job after 3 attempts', { jobId: flight.job.jobId });
      // Its round must not wait for it forever.
      if (flight.job.kind === 'run') runIsFinal(flight.job, { run: null, selected: null });
    }
    dirty = true;
  }

  async function sendChampionsToPackaging(): Promise<void> {
    while (packagingOutbox.length > 0 && config.commands.package) {
      const champion = packagingOutbox[0] as PackageChampion;
      await cpu.requestPackaging({
        workflowId: packagingWorkflowId(loopId),
        champion,
        input: { loopId, paths, command: config.commands.package, timeouts: config.timeouts, retries: config.retries },
      });
      packagingOutbox.shift();
      upsertSearchAttributes([{ key: CHAMPION, value: `${champion.run_id}/${champion.checkpoint_name}` }]);
      upsertMemo({ champion: state.champion ? state.champion.result : null });
    }
  }

  /** Wait until every child this run launched exists, so that ending the run (or cancelling them) cannot lose one. */
  async function childrenStarted(): Promise<void> {
    await condition(() => startsPending === 0);
  }

  /** Before continue-as-new: no child start pending, no new champion left unsent (neither travels in the carry). */
  async function settleBeforeHandOver(): Promise<void> {
    await childrenStarted();
    await sendChampionsToPackaging();
  }

  async function stopAtOnce(): Promise<void> {
    await childrenStarted();
    // Taken out of flight before any await: a cancelled child's end (lost) finds nothing to
    // re-queue, so each job waits in the queue exactly once; a report that beats its cancellation
    // still counts and takes its job out of the queue (takeReported).
    const cancelled = inFlight.splice(0);
    cancelling.push(...cancelled);
    // Cancelled jobs run again, from the start, when the loop is started again.
    queue.unshift(...cancelled.map((flight) => ({ ...flight.job, attempt: flight.job.attempt + 1 })));
    for (const { childId } of cancelled) {
      await getExternalWorkflowHandle(childId)
        .cancel()
        .catch((error: unknown) => log.warn('could not cancel child', { childId, error: failureText(error) }));
    }
    if (config.commands.package) {
      await getExternalWorkflowHandle(packagingWorkflowId(loopId))
        .signal(stopNowSignal)
        .catch(() => undefined);
    }
  }

  const stopped = (): GenerationResult => ({
    view: view(),
    resume: { ...carryOn(), queue: [...builds, ...queue], stopping: false, inFlight: [], unpackaged: packagingOutbox },
  });

  const carryOn = (): GenerationCarry => ({
    state,
    opening: null,
    split,
    round,
    queue,
    inFlight,
    candidates,
    candidatesError,
    lanesDownUntil,
    stopping,
    progress,
    teacher,
    teacherEnsemble,
    roundEnsembles,
    waitsReported,
    unpackaged: [],
  });

  // ---- the generation opens ----
  if (carry.opening) {
    log.info('generation start', { generation: carry.opening.generation, reason: carry.opening.reason });
  }
  upsertSearchAttributes([
    { key: LOOP_ID, value: loopId },
    { key: LOOP_KIND, value: 'generation' },
    { key: GENERATION, value: state.generation },
  ]);
  upsertMemo({ loop: loopId, generation: state.generation, stateDir: paths.stateDir });

  for (;;) {
    // Cleared before this turn's work: a signal that arrives while it awaits an activity wakes the next wait.
    dirty = false;
    if (stopNow) {
      await stopAtOnce();
      return stopped();
    }
    await sendChampionsToPackaging();
    if (state.advanceReason !== null && !stopping) {
      await settleBeforeHandOver();
      // A stop that came in meanwhile wins: the advance waits in the state for the loop's resumption.
      if (!stopping) {
        const opening = generationRow(state, state.advanceReason ?? 'requested', config.base_seed, now());
        log.info('generation advance', { from: state.generation, reason: opening.reason });
        // Queued jobs belong to the old generation; running ones finish and report into the new run.
        return continueAsNew<typeof generation>({
          loopId,
          config,
          carry: { ...carryOn(), ...freshGenerationPlans(), state, opening, split: null, round: 0, queue: [] },
        });
      }
    }
    while (!stopping && inFlight.length < config.parallel) {
      const busy = busyLanes();
      if (!pickLane(lanes, busy, lanesDownUntil, Date.now(), null)) break;
      const job = await nextJob();
      if (job === null) break;
      if (job.kind === 'run' && !(await ensureSplit())) {
        queue.unshift(job);
        break;
      }
      const lane = pickLane(lanes, busyLanes(), lanesDownUntil, Date.now(), job.kind === 'run' ? job.preferredLane : null);
      if (!lane) {
        queue.unshift(job);
        break;
      }
      launch(job, lane.queue);
      if (stopNow || state.advanceReason !== null) break;
    }
    if (stopping && inFlight.length === 0) {
      log.info('stopped', { generation: state.generation });
      return stopped();
    }
    if (workflowInfo().continueAsNewSuggested) {
      await settleBeforeHandOver();
      // An immediate stop that came in meanwhile is not carried over: the next turn handles it.
      if (!stopNow) return continueAsNew<typeof generation>({ loopId, config, carry: { ...carryOn(), queue: [...builds, ...queue] } });
    }
    if (idle && splitError === null && !stopping) await idleUntilChange();
    else await condition(() => dirty || stopNow || packagingOutbox.length > 0, wakeAfter());
  }

  /**
   * No active candidates: wait for a teacher file to appear or the candidates file to change, in
   * one heartbeating activity (an idle loop adds nothing to its history while it waits), or for a signal.
   */
  async function idleUntilChange(): Promise<void> {
    const scope = new CancellationScope();
    let finished = false;
    const watching = scope.run(() =>
      idleWatch.waitForChange({ files: waitingFor, candidatesFile: config.candidates, maxMs: 3_600_000 }),
    );
    watching.then(
      () => (finished = true),
      () => (finished = true),
    );
    await condition(() => finished || dirty || stopNow || packagingOutbox.length > 0 || builds.length > 0);
    if (!finished) scope.cancel();
  }

  /** When to look again without a signal: an idle loop polls; a down lane comes back. */
  function wakeAfter(): number | undefined {
    const waits: number[] = [];
    if (idle) waits.push(IDLE_POLL_MS);
    const t = Date.now();
    for (const until of Object.values(lanesDownUntil)) if (until > t) waits.push(until - t);
    return waits.length > 0 ? Math.max(1, Math.min(...waits)) : undefined;
  }
}
