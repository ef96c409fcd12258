// Signals, updates and queries, defined once: workflows, the client CLI and `temporal workflow
// signal/update/query` share these names.
import { defineQuery, defineSignal, defineUpdate } from '@temporalio/workflow';
import type { PackageChampion } from '../activities/types.js';
import type { ReserveReport, RunReport, TeacherReport } from '../contract/child-reports.js';
import { CHAMPION_SIGNAL, STOP_NOW_SIGNAL } from '../contract/packaging.js';
import type { GenerationCarry } from './generation/carry.js';
import type { LoopView } from './loop-view.js';
import type { PackagingView } from './packaging-view.js';

export type { ReserveReport, RunReport, TeacherReport };

/** Launch nothing new, let running work finish, then close. */
export const stopSignal = defineSignal('stop');

/** Stop at once: cancel running children (their subprocesses are killed) and close without half results. */
export const stopNowSignal = defineSignal(STOP_NOW_SIGNAL);

/** Open the next generation before any new job, e.g. after the corpus labels changed. */
export const advanceSignal = defineSignal<[reason: string]>('advance');

/**
 * The same three as updates (same names): validated by the workflow (a refusal says why and
 * changes nothing), applied as the signal is, answered with the loop's view after the change.
 * `champion-loop stop/advance` send these; the signals stay for older clients and scripts.
 */
export const stopUpdate = defineUpdate<LoopView>('stop');
export const stopNowUpdate = defineUpdate<LoopView>('stopNow');
/**
 * `fromGeneration`: the generation the sender means to advance (refused once the loop is past it);
 * `named`: a person named it (`--generation`), so a generation an advance just opened may be
 * advanced again. Both absent from older clients.
 */
export const advanceUpdate = defineUpdate<LoopView, [reason: string, fromGeneration?: number, named?: boolean]>(
  'advance',
);

/** What the generation answers `champion-loop start`: whether that start started this run, and the loop's view. */
export interface StartAnswer {
  /** The start's token is the one this run was started with: the start started it (else it found the loop running). */
  readonly startedHere: boolean;
  /** The run that answered. */
  readonly runId: string;
  readonly view: LoopView;
}

/**
 * `champion-loop start` sends this with the start itself (Update-with-Start, the workflow id's
 * conflict policy USE_EXISTING): one atomic step that starts the loop or finds it running, and
 * answers from the run either way. `startToken`: the start's own random token, which the start
 * input carries too.
 */
export const startUpdate = defineUpdate<StartAnswer, [startToken: string]>('start');

/** The failure type of an update the generation's validator refuses (nothing changes). */
export const UPDATE_REFUSED = 'UpdateRefused';

/** A loop pausing because every run of its last rounds failed for one reason plans its next round now. */
export const resumeSignal = defineSignal('resume');

/** What a lane's worker says of itself to the loops that use it (its queue). */
export interface LaneDraining {
  /** The lane's task queue, e.g. `champion-loop.gpu-a.gpu0`. */
  readonly lane: string;
  /** Draining: send it nothing new for this long (it says so again while it drains). 0: it is up. */
  readonly forMs: number;
}

/**
 * A lane's worker drains (`worker gpu --drain`, SIGUSR2) or has started: the loop sends it no
 * new job while it drains and takes it back as soon as it says it is up. Loops without the lane ignore it.
 */
export const laneDrainingSignal = defineSignal<[LaneDraining]>('laneDraining');

export const runReportedSignal = defineSignal<[RunReport]>('runReported');

export const reserveReportedSignal = defineSignal<[ReserveReport]>('reserveReported');

export const teacherReportedSignal = defineSignal<[TeacherReport]>('teacherReported');

/**
 * A job's child that reports by its completion (JobInput `reportBy`) is told by a generation run
 * that did not start it (one after a continue-as-new, a resumption, or a reset that found it
 * running) to report by signal too: its completion reaches only the run that started it.
 */
export const adoptSignal = defineSignal('adopt');

/** The live state of a loop (docs/behaviour.md, state and ledger) plus what runs where. */
export const stateQuery = defineQuery<LoopView>('state');

/**
 * What the generation would carry into its next run, as it stands now. Asked of a run that ended
 * without a result (terminated, cancelled, failed), it tells `champion-loop start` where to go on.
 */
export const carryQuery = defineQuery<GenerationCarry>('carry');

/** A new champion for the packaging workflow (newest queued wins). */
export const championSignal = defineSignal<[PackageChampion]>(CHAMPION_SIGNAL);

/** What packaging is doing, what is queued, and every package row so far in this run. */
export const packagingQuery = defineQuery<PackagingView>('packaging');

/** How a training run's current details begin while it waits for the store to take its job inputs. */
export const STORE_WAIT_DETAILS = "the run's job inputs wait for the artifact store";

/** A candidates file the generation cannot start from (the loop fails, naming the problem). */
export const CANDIDATES_INVALID = 'CandidatesInvalid';
