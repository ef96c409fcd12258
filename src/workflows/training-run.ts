import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  log,
  type LocalActivityInterfaceFor,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { LoopActivities } from './activity-types.js';
import { withSummaries } from './activity-summary.js';
import type { PreparedRun, LaneAdmission, MemoryWaits } from '../activities/types.js';
import { failedEvalRow } from '../ledger/eval-row.js';
import type { RunRow } from '../ledger/rows.js';
import type { EvalRow } from '../rules/types.js';
import { failureText, laneUnavailable, stepFailureText } from './lane-failure.js';
import { CONFIG_ERROR, JOB_CONFIG_MISSING, SPLIT_MISSING, STORE_UNAVAILABLE } from '../contract/failures.js';
import { runReportedSignal, STORE_WAIT_DETAILS, type RunReport } from './messages.js';
import { laneLimits, onLane } from './lane-step.js';
import { localStepOptions, stepOptions } from './step-options.js';
import { reportBack } from './report-back.js';
import { markBaseline } from './baseline.js';
import type { LaneJob } from '../contract/lane-job.js';
import { gpuCost, laneJobOfInput, runRow, type RunPlan, type TrainingRunInput } from './training-run-plan.js';
import { definedFields } from '../support/defined-fields.js';
import type { GpuNeed } from '../rules/gpu-needs.js';

/** What every step of one training run uses: its input, its lane terms, its store, its local activities. */
interface RunSteps {
  readonly input: TrainingRunInput;
  readonly plan: RunPlan;
  readonly onLaneJob: { laneJob?: LaneJob };
  readonly store: Pick<TrainingRunInput, 'artifacts'>;
  /** The loop owns the run directory, whichever of its children (a retry elsewhere, a resumed loop) trains it. */
  readonly owner: string;
  readonly local: LocalActivityInterfaceFor<LoopActivities>;
}

/** A training's outcome: the run row (null when its lane was unavailable), and what the trainer chose and was admitted by. */
interface Trained {
  readonly run: RunRow | null;
  readonly selected: RunReport['selected'];
  readonly admission?: LaneAdmission;
  /** Lane unavailable: why the lane was lost under the training before that (LaneAttempts.lostTo). */
  readonly lostTo?: string | null;
  /** The trainer's waits for GPU memory (the lane's idle share, lane-waits.ts). */
  readonly memoryWaits?: MemoryWaits;
}

/** A scoring's outcome: the eval rows, the checkpoints left unscored (lane unavailable), the most its evaluators held. */
interface Scored {
  readonly evals: EvalRow[];
  readonly unscored: string[];
  readonly unavailable: boolean;
  readonly evalPeakMiB?: number;
  readonly lostTo?: string | null;
  readonly memoryWaits?: MemoryWaits;
}

/**
 * Train one run on its lane, then score all its checkpoints on the test role in one evaluator
 * process on the same lane, and report the rows to the generation (report-back.ts says how).
 * Four steps: prepare (the job config), train, score, report.
 */
export async function trainingRun(input: TrainingRunInput): Promise<RunReport> {
  markBaseline();
  // Its adopt signal is handled from the child's first workflow task on.
  const deliver = reportBack(input);
  const steps: RunSteps = {
    input,
    plan: input.plan,
    // What each of its steps may use of the lane, as the generation decided it: every lane call carries it.
    onLaneJob: laneJobOfInput(input),
    // With loop.yaml `artifacts:` each step moves through the store what a host other than its own reads.
    store: definedFields({ artifacts: input.artifacts }),
    owner: input.parentId,
    // Every call carries a one-line summary for the Web UI's history (activity-summary.ts).
    // The job config is written in the child's first workflow task, by the worker that runs it: no
    // task queue round trip and no workflow task of its own between the child's start and training.
    local: withSummaries(proxyLocalActivities<LoopActivities>(localStepOptions('prepareRun'))),
  };
  // A cancellation (an immediate stop) propagates: nothing is reported, so no half result is recorded.
  const trained: Trained = input.run === null ? await prepareAndTrain(steps) : { run: input.run, selected: null };
  const run = trained.run;
  const scored: Scored =
    run && (run.status === 'trained' || run.status === 'ensemble')
      ? await score(steps, run)
      : { evals: [], unscored: [], unavailable: run === null };
  let report: RunReport = {
    childId: workflowInfo().workflowId,
    jobId: input.jobId,
    // An evaluation-only retry does not report the run row again; an ensemble's first scoring does.
    run: input.run && !input.reportRun ? null : run,
    evals: scored.evals,
    selected: trained.selected,
    laneUnavailable: scored.unavailable,
    unscored: scored.unscored,
    // Only a training this child ran on a GPU lane has one (reports in older histories have none).
    ...definedFields({ admission: trained.admission, evalPeakMiB: scored.evalPeakMiB }),
    // Its steps' waits for GPU memory: the generation counts them as the lane's idle time (not recorded in a row).
    ...definedFields({ memoryWaits: joinWaits(trained.memoryWaits, scored.memoryWaits) }),
  };
  const laneLost = scored.unavailable ? (trained.lostTo ?? scored.lostTo ?? null) : null;
  if (laneLost !== null) report = { ...report, laneLost };
  await deliver(runReportedSignal, report);
  return report;
}

/**
 * The Web UI's current details while a step of the run is on its lane (user metadata, not in
 * history): its lane and need. Whether it runs or waits for GPU memory, and the device's memory,
 * the workflow does not know: the step's heartbeat says them (its `gpu` field).
 */
function laneDetails(lane: string, step: string, need: GpuNeed | undefined): string {
  const admitted =
    need === undefined ? '' : `; a GPU lane admits it by ${(need.mib / 1024).toFixed(1)} GiB (${need.why})`;
  return `${step} on ${lane}${admitted}. On a GPU lane, whether it runs or waits for memory (since when, how much it needs) and the device's free and held memory are in its pending activity's heartbeat details, field "gpu" (Pending Activities), and in champion-loop status.`;
}

/** Two steps' waits for GPU memory as one list (undefined: neither waited). */
function joinWaits(a: MemoryWaits | undefined, b: MemoryWaits | undefined): MemoryWaits | undefined {
  const both = [...(a ?? []), ...(b ?? [])];
  return both.length > 0 ? both : undefined;
}

/**
 * Write the job config (waiting for a store that does not take its inputs); a split gone with
 * its state dir is first built again from its seed. The prepared run, or the failure that leaves
 * no job config (the candidate's base config gone or not a YAML mapping, the split not rebuilt).
 */
async function prepare(steps: RunSteps): Promise<{ prepared: PreparedRun } | { failure: unknown }> {
  const { input, plan } = steps;
  try {
    return { prepared: await prepareOnce(steps) };
  } catch (error) {
    if (isCancellation(error) || !(badConfig(error) || failureOfType(error, SPLIT_MISSING))) throw error;
    if (!failureOfType(error, SPLIT_MISSING) || plan.splitSeed === undefined) return { failure: error };
    log.warn('split missing: building it again', { run_id: plan.runId, split: plan.split });
    try {
      await withSummaries(proxyActivities<LoopActivities>(stepOptions('buildSplit', { loop: input }))).buildSplit({
        paths: input.paths,
        commands: input.commands,
        generation: plan.generation,
        splitSeed: plan.splitSeed,
      });
      return { prepared: await prepareOnce(steps) };
    } catch (again) {
      if (isCancellation(again) || !(again instanceof ActivityFailure)) throw again;
      return { failure: again };
    }
  }
}

/** prepareRun once through; a store that does not take the job's inputs is waited for (5 s doubling to a minute), however long it is down. */
async function prepareOnce({ input, plan, owner, store, local }: RunSteps): Promise<PreparedRun> {
  for (let wait = 5_000; ; wait = Math.min(60_000, wait * 2)) {
    try {
      const prepared = await local.prepareRun({
        paths: input.paths,
        candidate: plan.candidate,
        generation: plan.generation,
        round: plan.round,
        seed: plan.seed,
        split: plan.split,
        runId: plan.runId,
        owner,
        ...store,
      });
      setCurrentDetails('');
      return prepared;
    } catch (error) {
      if (!failureOfType(error, STORE_UNAVAILABLE)) throw error;
      log.warn('the artifact store does not take the job inputs; the run waits for it', {
        run_id: plan.runId,
        error: failureText(error),
        retryInSeconds: wait / 1000,
      });
      // The Web UI's "current details", and `status` (STORE_WAIT_DETAILS).
      setCurrentDetails(`${STORE_WAIT_DETAILS}: ${failureText(error)}; trying again in ${wait / 1000} s`);
      await sleep(wait);
    }
  }
}

/** Prepare, then train on the lane: the run row (a failed preparation fails the run with the reason, as a trainer failure would). */
async function prepareAndTrain(steps: RunSteps): Promise<Trained> {
  const { plan } = steps;
  const outcome = await prepare(steps);
  const now = new Date().toISOString();
  if ('failure' in outcome) {
    const failed = runRow(plan, '', '', {
      status: 'train_failed',
      started: now,
      finished: now,
      error: failureText(outcome.failure),
    });
    return { run: failed, selected: null };
  }
  const { prepared } = outcome;
  if (prepared.stale) {
    return {
      run: runRow(plan, prepared.configPath, prepared.configSha256, {
        status: 'stale_run_dir',
        started: now,
        finished: now,
      }),
      selected: null,
    };
  }
  return train(steps, prepared, now);
}

/**
 * Train on the lane; the run row, or none when the lane was unavailable. A job config gone
 * before the trainer started (an emptied state dir) is written again, once, and trained with.
 */
async function train(steps: RunSteps, prepared: PreparedRun, now: string, writtenAgain = false): Promise<Trained> {
  const { input, plan, onLaneJob, store, owner } = steps;
  const { paths, commands, timeouts } = input;
  setCurrentDetails(laneDetails(input.lane, 'train', onLaneJob.laneJob?.needs.train));
  const trained = await onLane(input, 'trainRun', `training ${plan.runId}`, (trainRun) =>
    trainRun({
      paths,
      commands,
      runId: plan.runId,
      configPath: prepared.configPath,
      owner,
      noCheckpointMarker: input.noCheckpointMarker,
      noProgress: timeouts.no_progress,
      ...definedFields({ resumeFlag: input.resumeFlag }),
      ...onLaneJob,
      ...store,
      ...definedFields({ inputs: prepared.inputs, data: prepared.data }),
    }),
  );
  setCurrentDetails('');
  if (!trained.ok && failureOfType(trained.error, JOB_CONFIG_MISSING) && !writtenAgain) {
    const again = await configWrittenAgain(steps, prepared);
    if ('prepared' in again) return train(steps, again.prepared, now, true);
  }
  // Not a seed field, and only when it happened: how many lanes the training lost.
  // With the lost attempts' GPU time, and when the first of them started.
  const lost = trained.lost > 0 ? { lost_lanes: trained.lost, first_started: now } : {};
  if (trained.ok) {
    const { selected, admission, memory_waits: memoryWaits, ...outcome } = trained.value;
    const seconds =
      trained.lostGpuSeconds > 0
        ? { gpu_seconds: Math.round(((outcome.gpu_seconds ?? 0) + trained.lostGpuSeconds) * 10) / 10 }
        : {};
    const fields = { ...outcome, ...seconds };
    const cost = gpuCost(fields.gpu_seconds, input.usdPerGpuHour);
    const run = runRow(plan, prepared.configPath, prepared.configSha256, { ...fields, ...cost, ...lost });
    return { run, selected, ...definedFields({ admission, memoryWaits }) };
  }
  if (laneUnavailable(trained.error)) return { run: null, selected: null, lostTo: trained.lostTo };
  const failed = runRow(plan, prepared.configPath, prepared.configSha256, {
    status: 'train_failed',
    started: now,
    finished: new Date().toISOString(),
    error: stepFailureText(trained.error, { ...laneLimits('trainRun', input), heartbeat: timeouts.heartbeat }),
    ...lost,
  });
  return { run: failed, selected: null };
}

/**
 * Score the run's checkpoints (the ones an earlier child left, when it is an evaluation-only
 * retry) on the test role in one evaluator process on the lane. A trained run whose job config
 * went with an emptied state dir gets it written again (the same bytes: checked by the row's
 * sha256) and is scored then.
 */
async function score(steps: RunSteps, run: RunRow): Promise<Scored> {
  const { input } = steps;
  const names = input.unscored ?? run.checkpoints;
  setCurrentDetails(laneDetails(input.lane, 'evaluate', steps.onLaneJob.laneJob?.needs.evaluate));
  let evaluated = await evaluateOnLane(steps, run, names);
  if (!evaluated.ok && failureOfType(evaluated.error, JOB_CONFIG_MISSING) && run.status === 'trained') {
    const again = await configWrittenAgain(steps, { configPath: run.config_path, configSha256: run.config_sha256 });
    if ('prepared' in again) evaluated = await evaluateOnLane(steps, run, names);
    else evaluated = { ...evaluated, error: again.error };
  }
  setCurrentDetails('');
  if (evaluated.ok) {
    // What its evaluator held of the GPU goes to the generation apart from the rows (never recorded in them).
    let evalPeakMiB: number | undefined;
    const memoryWaits: MemoryWaits[number][] = [];
    const evals = evaluated.value.map(({ gpu_peak_mib: peak, memory_waits: waits, ...row }) => {
      if (peak !== undefined) evalPeakMiB = Math.max(evalPeakMiB ?? 0, peak);
      memoryWaits.push(...(waits ?? []));
      return row;
    });
    return {
      evals,
      unscored: [],
      unavailable: false,
      ...definedFields({ evalPeakMiB, memoryWaits: memoryWaits.length > 0 ? memoryWaits : undefined }),
    };
  }
  if (laneUnavailable(evaluated.error))
    return { evals: [], unscored: names, unavailable: true, lostTo: evaluated.lostTo };
  log.warn('evaluation failed; its checkpoints count as scored', {
    run_id: run.run_id,
    error: failureText(evaluated.error),
  });
  const finished = new Date().toISOString();
  return {
    evals: names.map((name) => failedEvalRow(run, name, 'test', input.paths, finished)),
    unscored: [],
    unavailable: false,
  };
}

function evaluateOnLane(steps: RunSteps, run: RunRow, names: string[]) {
  const { input, onLaneJob, store } = steps;
  const { paths, commands } = input;
  return onLane(input, 'evaluateRun', `evaluating ${run.run_id}`, (evaluateRun) =>
    evaluateRun({
      paths,
      commands,
      run,
      checkpoints: names,
      role: 'test',
      ...definedFields({ itemErrors: input.itemErrors }),
      ...onLaneJob,
      ...store,
    }),
  );
}

/**
 * The job config gone with an emptied state dir, written again as it was (the split built again
 * first): the prepared run when its path and sha256 are those it had, else why not (the
 * candidate's definition changed since, or no job config can be written).
 */
async function configWrittenAgain(
  steps: RunSteps,
  was: Pick<PreparedRun, 'configPath' | 'configSha256'>,
): Promise<{ prepared: PreparedRun } | { error: Error }> {
  log.warn('job config missing: writing it again', { run_id: steps.plan.runId, config: was.configPath });
  const outcome = await prepare(steps);
  if ('failure' in outcome)
    return { error: new Error(`its job config could not be written again: ${failureText(outcome.failure)}`) };
  const { prepared } = outcome;
  if (prepared.configPath === was.configPath && prepared.configSha256 === was.configSha256) return { prepared };
  return {
    error: new Error(
      `its job config ${was.configPath} is gone and the candidate's definition changed since it trained (sha256 ${prepared.configSha256}, the run row says ${was.configSha256})`,
    ),
  };
}

/**
 * prepareRun's refusal of a base config (ConfigError): a retry would read the same file. A local
 * activity's failure reaches the workflow as the activity's own ApplicationFailure, a remote one's
 * (histories from before `prepare-run-locally`) wrapped in an ActivityFailure.
 */
function badConfig(error: unknown): boolean {
  return failureOfType(error, CONFIG_ERROR);
}

function failureOfType(error: unknown, type: string): boolean {
  const failure = error instanceof ActivityFailure ? error.cause : error;
  return failure instanceof ApplicationFailure && failure.type === type;
}
