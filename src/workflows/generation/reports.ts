// What the generation does with each report of a child, with an advance or a stop, and with a
// child that ended without reporting. Every handler is synchronous and marks the state dirty.
import { log } from '@temporalio/workflow';
import { recordRow } from '../../ledger/loop-state.js';
import { foldAdvance, foldReserveReport, foldRunReport } from '../../ledger/report-fold.js';
import { failureText } from '../lane-failure.js';
import type { ReserveReport, RunReport, TeacherReport } from '../messages.js';
import { advanceReasonOf, isReserveReport, isRunReport, isTeacherReport } from '../report-shapes.js';
import { addMember, type EnsembleMember } from '../round-ensembles.js';
import { runFinal } from '../round-progress.js';
import { teacherRunFinal } from '../teacher-plan.js';
import { nextAttempt, type InFlight, type RunJob } from './jobs.js';
import { laneDown, take, type Generation } from './state.js';

/** A child gives up on a job after this many attempts that ended without a report. */
const MAX_ATTEMPTS = 3;

function takeFlight(gen: Generation, childId: string): InFlight | undefined {
  const index = gen.inFlight.findIndex((flight) => flight.childId === childId);
  return index < 0 ? undefined : gen.inFlight.splice(index, 1)[0];
}

/**
 * The job a child's report is for: in flight, or cancelled by a stop at once whose cancellation
 * the report beat. Such a report counts (the ledger exporter counts every report of a child that
 * was started and not lost), and its job no longer waits in the queue for the resumption.
 */
function takeReported(gen: Generation, childId: string): InFlight | undefined {
  const flight = takeFlight(gen, childId);
  const index = flight ? -1 : gen.cancelling.findIndex((cancelled) => cancelled.childId === childId);
  if (index < 0) return flight;
  const late = gen.cancelling.splice(index, 1)[0] as InFlight;
  const queued = gen.queue.findIndex((job) => job.kind === late.job.kind && job.jobId === late.job.jobId && job.attempt === late.job.attempt + 1);
  if (queued >= 0) gen.queue.splice(queued, 1);
  return late;
}

/** An ordinary run (or a student) is final: its round progresses, the teacher plan and the round ensembles learn of it. */
function runIsFinal(gen: Generation, job: RunJob, report: Pick<RunReport, 'run' | 'selected'>): void {
  const run = report.run ?? job.run;
  if (run?.status === 'ensemble' || job.generation !== gen.state.generation) return;
  gen.progress = runFinal(gen.progress, job.round);
  if (run) gen.teacher = teacherRunFinal(gen.teacher, run);
  // An evaluation-only retry reports no selection: the job kept the one its training reported.
  const selected = report.selected ?? job.selected ?? null;
  if (run?.status === 'trained' && selected) {
    const member: EnsembleMember = {
      run_id: run.run_id,
      checkpoint_name: selected.checkpoint,
      config: run.config_path,
      checkpoint: `${gen.paths.runsRoot}/${run.run_id}/${selected.checkpoint}`,
      validation_gate_auc: selected.validationGateAuc,
      validation_fail_to_pass: selected.falseNegatives ?? 0,
      round: run.round,
    };
    gen.roundEnsembles = addMember(gen.roundEnsembles, member);
  }
}

/** A signal whose payload lacks the shape its handler reads (sent by hand): logged, never folded. */
function ignoreMalformed(signal: string, input: unknown): void {
  log.warn('ignoring a malformed signal', { signal, input: JSON.stringify(input ?? null).slice(0, 200) });
}

export function onRunReport(gen: Generation, signal: string, report: RunReport): void {
  if (!isRunReport(report)) return ignoreMalformed(signal, report);
  const flight = takeReported(gen, report.childId);
  // Reports only count from children this loop waits for, so none is counted twice.
  if (!flight || flight.job.kind !== 'run') return;
  take(gen, foldRunReport(gen.state, report, gen.settings));
  if (!report.laneUnavailable) runIsFinal(gen, flight.job, report);
  if (report.laneUnavailable) {
    laneDown(gen, flight.lane);
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
  const flight = takeReported(gen, report.childId);
  if (!flight || flight.job.kind !== 'teacher') return;
  if (report.row === null) {
    laneDown(gen, flight.lane);
    gen.queue.unshift(nextAttempt(flight.job));
  } else {
    gen.state = recordRow(gen.state, report.row, gen.settings).state;
    log.info('teacher built', { generation: report.row.generation, status: report.row.status, members: report.row.members.length });
    // Right after a successful build its members are scored as one ensemble on the test role.
    if (report.row.status === 'ok' && report.row.generation === gen.state.generation) {
      const configs = new Map(flight.job.members.map((member) => [member.run_id, member.config_path]));
      gen.teacherEnsemble = report.row.members.map((member) => ({
        config: configs.get(member.run_id) ?? '',
        checkpoint: `${gen.paths.runsRoot}/${member.run_id}/${member.checkpoint_name}`,
      }));
    }
  }
  gen.dirty = true;
}

export function onReserveReport(gen: Generation, signal: string, report: ReserveReport): void {
  if (!isReserveReport(report)) return ignoreMalformed(signal, report);
  const flight = takeReported(gen, report.childId);
  if (!flight || flight.job.kind !== 'reserve') return;
  if (report.reserve === null) {
    laneDown(gen, flight.lane);
    gen.queue.unshift(nextAttempt(flight.job));
  } else {
    take(gen, foldReserveReport(gen.state, { ...report, reserve: report.reserve }, gen.settings));
  }
  gen.dirty = true;
}

export function onAdvance(gen: Generation, reason: unknown): void {
  if (typeof reason !== 'string') log.warn('advance signal without a text reason; advancing as requested', { input: JSON.stringify(reason ?? null).slice(0, 200) });
  gen.state = foldAdvance(gen.state, advanceReasonOf(reason));
  gen.dirty = true;
}

export function onStop(gen: Generation): void {
  gen.stopping = true;
  gen.dirty = true;
}

export function onStopNow(gen: Generation): void {
  gen.stopNow = true;
  gen.stopping = true;
  gen.dirty = true;
}

/** A child ended without a report (terminated by hand, say): its slot frees and the job runs again. */
export function onChildLost(gen: Generation, childId: string, error: unknown): void {
  const flight = takeFlight(gen, childId);
  if (!flight) return;
  log.warn('child ended without a report; the job runs again', { childId, error: failureText(error) });
  if (flight.job.attempt < MAX_ATTEMPTS) gen.queue.unshift(nextAttempt(flight.job));
  else {
    log.error(`giving up on a job after ${MAX_ATTEMPTS} attempts`, { jobId: flight.job.jobId });
    // Its round must not wait for it forever.
    if (flight.job.kind === 'run') runIsFinal(gen, flight.job, { run: null, selected: null });
  }
  gen.dirty = true;
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
