// What the generation does with each report of a child, and with a child that ended without
// reporting (an operator's advance or stop: control.ts). Every handler is synchronous and marks the state dirty.

import { notePeak } from '../../rules/gpu-needs.js';
import { addTrainingGpu, noteJobEnded } from './lane-use.js';
import {
  CancelledFailure,
  ChildWorkflowFailure,
  TerminatedFailure,
  TimeoutFailure,
  log,
  upsertMemo,
} from '@temporalio/workflow';
import { recordRow } from '../../ledger/loop-state.js';
import {
  foldReserveReport,
  foldRunReport,
  givenUpRunRow,
  lastAttempt,
  MAX_CHILD_ATTEMPTS,
  untrainedRun,
} from '../../ledger/report-fold.js';
import { failureText } from '../lane-failure.js';
import type { ReserveReport, RunReport, TeacherReport } from '../messages.js';
import { childLostWhy, foldedRunReport, isReserveReport, isRunReport, isTeacherReport } from '../report-shapes.js';
import { addMember, type EnsembleMember } from '../round-ensembles.js';
import { runFilesFor } from '../../artifacts/file-ref.js';
import { runFinal } from '../round-progress.js';
import { teacherRunFinal } from '../teacher-plan.js';
import { SPLIT_FAILED_MEMO } from '../split-failure.js';
import type { RunRow } from '../../ledger/rows.js';
import { nextAttempt, type InFlight, type RunJob } from './jobs.js';
import { laneDown, now, take, type Generation } from './state.js';
import { definedFields } from '../../support/defined-fields.js';
function takeFlight(gen: Generation, childId: string): InFlight | undefined {
  const index = gen.inFlight.findIndex((flight) => flight.childId === childId);
  return index < 0 ? undefined : gen.inFlight.splice(index, 1)[0];
}

/**
 * The job a child's report is for: in flight, or cancelled by a stop at once whose cancellation
 * the report beat. Such a report counts (the ledger exporter counts every report of a child that
 * was started and not lost), and its job no longer waits in the queue for the resumption.
 */
function takeReported(gen: Generation, childId: string, memoryWaits?: unknown): InFlight | undefined {
  const flight = takeFlight(gen, childId);
  // Its time on the lane, less its waits for memory, counts as the lane's work (lane-use.ts).
  if (flight)
    gen.laneUse = noteJobEnded(
      gen.laneUse,
      flight.lane,
      Date.parse(flight.since) || Date.now(),
      Date.now(),
      memoryWaits,
    );
  const index = flight ? -1 : gen.cancelling.findIndex((cancelled) => cancelled.childId === childId);
  if (index < 0) return flight;
  const late = gen.cancelling.splice(index, 1)[0] as InFlight;
  const queued = gen.queue.findIndex(
    (job) => job.kind === late.job.kind && job.jobId === late.job.jobId && job.attempt === late.job.attempt + 1,
  );
  if (queued >= 0) gen.queue.splice(queued, 1);
  return late;
}

/** An ordinary run (or a student) is final: its round progresses, the teacher plan and the round ensembles learn of it. */
function runIsFinal(gen: Generation, job: RunJob, report: Pick<RunReport, 'run' | 'selected'>): void {
  const run = report.run ?? job.run;
  if (run?.status === 'ensemble' || job.generation !== gen.state.generation) return;
  gen.progress = runFinal(gen.progress, job.round);
  noteRunOutcome(
    gen,
    job.round,
    run === null
      ? 'given up: its training child ended without a report'
      : run.status === 'train_failed'
        ? failureReason(run)
        : null,
  );
  if (run) gen.teacher = teacherRunFinal(gen.teacher, run);
  // An evaluation-only retry reports no selection: the job kept the one its training reported.
  const selected = report.selected ?? job.selected ?? null;
  if (run?.status === 'trained' && selected) {
    const runDir = `${gen.paths.runsRoot}/${run.run_id}`;
    const checkpoint = `${runDir}/${selected.checkpoint}`;
    const member: EnsembleMember = {
      run_id: run.run_id,
      checkpoint_name: selected.checkpoint,
      config: run.config_path,
      checkpoint,
      validation_gate_auc: selected.validationGateAuc,
      validation_fail_to_pass: selected.falseNegatives ?? 0,
      round: run.round,
      ...(run.files === undefined ? {} : { files: runFilesFor(run.files, runDir, [checkpoint]) }),
    };
    gen.roundEnsembles = addMember(gen.roundEnsembles, member);
  }
}

/** Longest pause before the next round of a loop whose rounds keep failing for one reason. */
const MAX_FAILING_PAUSE_MS = 30 * 60_000;

/** A failed run's reason, the same for every run it hits: its run id and child workflow id left out. */
function failureReason(run: RunRow): string {
  return (run.error ?? 'train_failed')
    .split(run.run_id)
    .join('<run>')
    .replace(/\/g\d+\/r\d+\/[^\s):]+/g, '/<run>');
}

/**
 * A run of `round` is final: failed for `reason`, or not (null). A round whose runs all failed for
 * one reason makes the loop failing and pause before its next round, 1, 2, 4 ... 30 minutes; a run
 * that does not fail ends it.
 */
function noteRunOutcome(gen: Generation, round: number, reason: string | null): void {
  const key = String(round);
  if (reason === null) {
    // A run that did not fail clears its round, whichever of its runs ended first.
    gen.roundFailures = { ...gen.roundFailures, [key]: null };
    if (gen.failing) {
      log.info('a run did not fail; the loop is no longer failing', { reason: gen.failing.reason });
      gen.failing = null;
      upsertMemo({ failing: null });
    }
  } else {
    const before = gen.roundFailures[key];
    gen.roundFailures = { ...gen.roundFailures, [key]: before === undefined || before === reason ? reason : null };
  }
  if ((gen.progress[key] ?? 0) > 0) return;
  const { [key]: same, ...rest } = gen.roundFailures;
  if (same === undefined) return;
  gen.roundFailures = rest;
  if (same === null) return;
  const again = gen.failing?.reason === same;
  const rounds = again && gen.failing ? gen.failing.rounds + 1 : 1;
  const pause = Math.min(MAX_FAILING_PAUSE_MS, 60_000 * 2 ** (rounds - 1));
  gen.failing = {
    reason: same,
    since: again && gen.failing ? gen.failing.since : now(),
    rounds,
    until: Date.now() + pause,
  };
  log.warn('every run of the round failed for one reason; pausing before the next round', {
    round,
    reason: same,
    rounds,
    pauseMinutes: pause / 60_000,
  });
  upsertMemo({ failing: `${same} (${rounds} round${rounds === 1 ? '' : 's'} in a row, since ${gen.failing.since})` });
}

/** An operator's `resume`: a failing loop plans its next round now, and a split given up is tried again. */
export function onResume(gen: Generation): void {
  if (gen.failing) gen.failing = { ...gen.failing, until: 0 };
  // The packaging workflow may have been ended by hand with the champion (the next turn asks).
  if (gen.state.champion && gen.config.commands.package) gen.repackage = true;
  if (gen.splitFailed) {
    log.info('resume: the split is tried again', { error: gen.splitFailed.error });
    gen.splitFailed = null;
    gen.splitError = null;
    upsertMemo({ [SPLIT_FAILED_MEMO]: null });
  }
  gen.dirty = true;
}

/** A signal whose payload lacks the shape its handler reads (sent by hand): logged, never folded. */
function ignoreMalformed(signal: string, input: unknown): void {
  log.warn('ignoring a malformed signal', { signal, input: JSON.stringify(input ?? null).slice(0, 200) });
}

export function onRunReport(gen: Generation, signal: string, sent: RunReport): void {
  // Bounded before it reaches state (workflows/report-shapes.ts, foldedRunReport).
  const report = foldedRunReport(sent, () => true);
  if (report === null)
    return ignoreMalformed(
      signal,
      isRunReport(sent)
        ? { childId: sent.childId, jobId: sent.jobId, evals: sent.evals.length, unscored: sent.unscored.length }
        : sent,
    );
  const flight = takeReported(gen, report.childId, report.memoryWaits);
  // Reports only count from children this loop waits for, so none is counted twice.
  if (!flight || flight.job.kind !== 'run') return;
  take(gen, foldRunReport(gen.state, report, gen.settings));
  // What the run held of its GPU at most: its candidate's later jobs are admitted by it (rules/gpu-needs.ts).
  const peak = report.run?.gpu_peak_mib;
  if (peak !== undefined)
    gen.candidatePeaks = notePeak(gen.candidatePeaks, flight.job.candidate, peak, report.run?.status === 'trained');
  // What its evaluators held: its candidate's (or, for an ensemble, its own) later evaluations are admitted by it.
  if (typeof report.evalPeakMiB === 'number')
    gen.evaluatePeaks = notePeak(gen.evaluatePeaks, flight.job.candidate, report.evalPeakMiB, true);
  if (report.run?.gpu_seconds !== undefined)
    gen.trainingGpu = addTrainingGpu(gen.trainingGpu, gen.state.generation, {
      generation: report.run.generation,
      seconds: report.run.gpu_seconds,
      ...definedFields({ usd: report.run.gpu_usd }),
    });
  if (!report.laneUnavailable) {
    runIsFinal(gen, flight.job, report);
    delete gen.lanesDownWhy[flight.lane];
  }
  if (report.laneUnavailable) {
    laneDown(gen, flight.lane, typeof report.laneLost === 'string' ? report.laneLost : null);
    const run = report.run ?? flight.job.run;
    gen.queue.unshift({
      ...nextAttempt(flight.job),
      run,
      unscored: run ? report.unscored : null,
      preferredLane: null,
      // A run row already reported is not reported again.
      reportRun: flight.job.reportRun === true && report.run === null,
      selected: report.selected ?? flight.job.selected ?? null,
    });
  }
  gen.dirty = true;
}

export function onTeacherReport(gen: Generation, signal: string, report: TeacherReport): void {
  if (!isTeacherReport(report)) return ignoreMalformed(signal, report);
  const flight = takeReported(gen, report.childId, report.memoryWaits);
  if (!flight || flight.job.kind !== 'teacher') return;
  if (report.row === null) {
    laneDown(gen, flight.lane);
    gen.queue.unshift(nextAttempt(flight.job));
  } else {
    gen.state = recordRow(gen.state, report.row, gen.settings).state;
    log.info('teacher built', {
      generation: report.row.generation,
      status: report.row.status,
      members: report.row.members.length,
    });
    // Right after a successful build its members are scored as one ensemble on the test role.
    if (report.row.status === 'ok' && report.row.generation === gen.state.generation) {
      const built = new Map(flight.job.members.map((member) => [member.run_id, member]));
      gen.teacherEnsemble = report.row.members.map((member) => {
        const runDir = `${gen.paths.runsRoot}/${member.run_id}`;
        const checkpoint = `${runDir}/${member.checkpoint_name}`;
        const files = built.get(member.run_id)?.files;
        return {
          config: built.get(member.run_id)?.config_path ?? '',
          checkpoint,
          ...(files === undefined ? {} : { files: runFilesFor(files, runDir, [checkpoint]) }),
        };
      });
    }
  }
  gen.dirty = true;
}

export function onReserveReport(gen: Generation, signal: string, report: ReserveReport): void {
  if (!isReserveReport(report)) return ignoreMalformed(signal, report);
  const flight = takeReported(gen, report.childId, report.memoryWaits);
  if (!flight || flight.job.kind !== 'reserve') return;
  if (report.reserve === null) {
    laneDown(gen, flight.lane);
    gen.queue.unshift(nextAttempt(flight.job));
  } else {
    take(gen, foldReserveReport(gen.state, { ...report, reserve: report.reserve }, gen.settings));
  }
  const candidate = gen.candidates?.find((known) => known.name === report.champion.candidate);
  if (typeof report.peakMiB === 'number' && candidate !== undefined)
    gen.evaluatePeaks = notePeak(gen.evaluatePeaks, candidate, report.peakMiB, true);
  gen.dirty = true;
}

/** A child's report (by its completion, or read from its outcome) to the handler of its job's kind. */
export function onReportOf(gen: Generation, kind: InFlight['job']['kind'], via: string, report: unknown): void {
  if (kind === 'run') onRunReport(gen, via, report as RunReport);
  else if (kind === 'teacher') onTeacherReport(gen, via, report as TeacherReport);
  else onReserveReport(gen, via, report as ReserveReport);
}

/** A child ended without a report (terminated by hand, say): its slot frees and the job runs again. */
export function onChildLost(gen: Generation, childId: string, error: unknown): void {
  const flight = takeFlight(gen, childId);
  if (!flight) return;
  log.warn('child ended without a report; the job runs again', { childId, error: failureText(error) });
  if (!lastAttempt(flight.job.attempt)) gen.queue.unshift(nextAttempt(flight.job));
  else {
    log.error(`giving up on a job after ${MAX_CHILD_ATTEMPTS} attempts`, { jobId: flight.job.jobId });
    // Its round must not wait for it forever. A run never trained ends as a train_failed row with
    // why (a ledger read from history folds the same row from the child-lost event: ledger/history).
    const { job } = flight;
    if (job.kind === 'run') {
      const untrained = untrainedRun(job);
      const run = untrained === null ? null : givenUpRunRow(untrained, childId, lostWhyOf(error), now());
      if (run) {
        // `run_id`, the ledger's name: the logger's own `runId` is the workflow run's.
        log.error('run given up: recorded train_failed', {
          run_id: run.run_id,
          error: run.error,
          finished: run.finished,
        });
        take(gen, foldRunReport(gen.state, { run, evals: [] }, gen.settings));
      }
      runIsFinal(gen, job, { run, selected: null });
    }
  }
  gen.dirty = true;
}

/** Why a child ended without a report, in the words a ledger read from history gives its event (ledger/history). */
function lostWhyOf(error: unknown): string {
  if (typeof error === 'string') return error;
  if (error instanceof ChildWorkflowFailure) {
    if (error.cause instanceof TerminatedFailure) return childLostWhy({ how: 'terminated' });
    if (error.cause instanceof CancelledFailure) return childLostWhy({ how: 'cancelled' });
    if (error.cause instanceof TimeoutFailure) return childLostWhy({ how: 'timed-out' });
    if (error.cause) return childLostWhy({ how: 'failed', message: error.cause.message });
  }
  return failureText(error);
}

/** Cancelled jobs run again, from the start, when the loop is started again; this run ends right after. */
export function cancelAllInFlight(gen: Generation): InFlight[] {
  // Taken out of flight before any await: a cancelled child's end (onChildLost) finds nothing to
  // re-queue, so each job waits in the queue exactly once; a report that beats its cancellation
  // still counts and takes its job out of the queue (takeReported).
  const cancelled = gen.inFlight.splice(0);
  gen.cancelling.push(...cancelled);
  gen.queue.unshift(...cancelled.map((flight) => nextAttempt(flight.job)));
  return cancelled;
}
