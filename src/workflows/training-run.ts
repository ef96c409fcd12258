import {
  ActivityFailure,
  ApplicationFailure,
  isCancellation,
  log,
  proxyActivities,
  proxyLocalActivities,
  setCurrentDetails,
  sleep,
  workflowInfo,
} from '@temporalio/workflow';
import type { LoopActivities } from './activity-types.js';
import { withSummaries } from './activity-summary.js';
import type { Candidate, PreparedRun, LaneAdmission } from '../activities/types.js';
import { failedEvalRow } from '../ledger/eval-row.js';
import type { RunRow } from '../ledger/rows.js';
import type { EvalRow } from '../rules/types.js';
import { failureText, laneUnavailable, stepFailureText } from './lane-failure.js';
import {
  CONFIG_ERROR,
  runReportedSignal,
  SPLIT_MISSING,
  STORE_UNAVAILABLE,
  STORE_WAIT_DETAILS,
  type RunReport,
} from './messages.js';
import { splitActivityOptions } from './queues.js';
import type { JobInput } from './job-input.js';
import type { GpuNeed } from '../rules/gpu-needs.js';
import { onLane } from './lane-step.js';
import { reportBack } from './report-back.js';
import { markBaseline } from './baseline.js';
import { DEFAULT_OOM_RETRIES, type LaneJob } from '../contract/lane-job.js';

/** One training run of one candidate in one round, as the generation planned it. */
interface RunPlan {
  readonly generation: number;
  readonly round: number;
  readonly seed: number;
  readonly candidate: Candidate;
  readonly runId: string;
  readonly split: string;
  /** The split's seed: a split gone from the state dir is built again from it. Absent in inputs from before. */
  readonly splitSeed?: number;
}

export interface TrainingRunInput extends JobInput {
  readonly noCheckpointMarker: string;
  /** loop.yaml `resume_flag`; absent when it is not set (and in inputs from before the setting). */
  readonly resumeFlag?: string;
  readonly plan: RunPlan;
  /** Set when an earlier child trained the run and only evaluations are left. */
  readonly run: RunRow | null;
  readonly unscored: string[] | null;
  /** The run row came from the generation (an ensemble's synthetic run) and is new to the ledger. */
  readonly reportRun?: boolean;
  /** Inputs from before `laneJob`: what the run's training may grow to on its lane's GPU (its evaluations were held to it too). */
  readonly gpuNeed?: GpuNeed;
  /** loop.yaml `usd_per_gpu_hour` of its lane, when set: the run row's `gpu_usd`. */
  readonly usdPerGpuHour?: number;
}

function runRow(
  plan: RunPlan,
  configPath: string,
  configSha256: string,
  fields: Partial<RunRow> & Pick<RunRow, 'status' | 'started' | 'finished'>,
): RunRow {
  return {
    type: 'run',
    generation: plan.generation,
    round: plan.round,
    seed: plan.seed,
    candidate: plan.candidate.name,
    run_id: plan.runId,
    config_path: configPath,
    config_sha256: configSha256,
    train_rc: null,
    epochs_run: null,
    checkpoints: [],
    error: null,
    ...fields,
  };
}

/**
 * Train one run on its lane, then score all its checkpoints on the test role in one evaluator
 * process on the same lane, and report the rows to the generation (report-back.ts says how).
 */
export async function trainingRun(input: TrainingRunInput): Promise<RunReport> {
  markBaseline();
  const { plan, paths, commands, timeouts, retries } = input;
  const deliver = reportBack(input);
  // What each of its steps may use of the lane, as the generation decided it: every lane call carries it.
  const onLaneJob = laneJobOfInput(input);
  // With loop.yaml `artifacts:` each step moves through the store what a host other than its own reads.
  const store = input.artifacts === undefined ? {} : { artifacts: input.artifacts };
  // The loop owns the run directory, whichever of its children (a retry elsewhere, a resumed loop) trains it.
  const owner = input.parentId;
  // Every call carries a one-line summary for the Web UI's history (activity-summary.ts).
  // The job config is written in the child's first workflow task, by the worker that runs it: no
  // task queue round trip and no workflow task of its own between the child's start and training.
  const local = withSummaries(
    proxyLocalActivities<LoopActivities>({
      startToCloseTimeout: '1 minute',
      retry: { maximumAttempts: 5 },
    }),
  );
  let run = input.run;
  let selected: RunReport['selected'] = null;
  let admission: LaneAdmission | undefined;
  let evals: EvalRow[] = [];
  let unscored: string[] = [];
  let unavailable = false;
  let evalPeakMiB: number | undefined;
  // A cancellation (an immediate stop) propagates: nothing is reported, so no half result is recorded.
  if (run === null) {
    let prepared: PreparedRun | null = null;
    const prepareOnce = () =>
      local.prepareRun({
        paths,
        candidate: plan.candidate,
        generation: plan.generation,
        round: plan.round,
        seed: plan.seed,
        split: plan.split,
        runId: plan.runId,
        owner,
        ...store,
      });
    // A store that does not take the job's inputs is waited for (5 s doubling to a minute), however long it is down.
    const prepare = async (): Promise<PreparedRun> => {
      for (let wait = 5_000; ; wait = Math.min(60_000, wait * 2)) {
        try {
          const prepared = await prepareOnce();
          setCurrentDetails('');
          return prepared;
        } catch (error) {
          if (!failureOfType(error, STORE_UNAVAILABLE)) throw error;
          log.warn('the artifact store does not take the job inputs; the run waits for it', {
            runId: plan.runId,
            error: failureText(error),
            retryInSeconds: wait / 1000,
          });
          // The Web UI's "current details", and `status` (STORE_WAIT_DETAILS).
          setCurrentDetails(`${STORE_WAIT_DETAILS}: ${failureText(error)}; trying again in ${wait / 1000} s`);
          await sleep(wait);
        }
      }
    };
    try {
      prepared = await prepare();
    } catch (error) {
      // The candidate's base config is gone or not a YAML mapping (changed since the round was
      // planned), or the split is gone: no job config, so the run fails with the reason, as a
      // trainer failure would; a split gone with its state dir is first built again from its seed.
      if (isCancellation(error) || !(badConfig(error) || failureOfType(error, SPLIT_MISSING))) throw error;
      let failure: unknown = error;
      if (failureOfType(error, SPLIT_MISSING) && plan.splitSeed !== undefined) {
        log.warn('split missing: building it again', { runId: plan.runId, split: plan.split });
        try {
          await withSummaries(proxyActivities<LoopActivities>(splitActivityOptions(timeouts))).buildSplit({
            paths,
            commands,
            generation: plan.generation,
            splitSeed: plan.splitSeed,
          });
          prepared = await prepare();
          failure = null;
        } catch (again) {
          if (isCancellation(again) || !(again instanceof ActivityFailure)) throw again;
          failure = again;
        }
      }
      if (failure !== null) {
        const now = new Date().toISOString();
        run = runRow(plan, '', '', {
          status: 'train_failed',
          started: now,
          finished: now,
          error: failureText(failure),
        });
      }
    }
    const now = new Date().toISOString();
    if (prepared?.stale) {
      run = runRow(plan, prepared.configPath, prepared.configSha256, {
        status: 'stale_run_dir',
        started: now,
        finished: now,
      });
    } else if (prepared) {
      const trained = await onLane(
        input,
        { kind: 'training', timeout: timeouts.train, attempts: retries.train, what: `training ${plan.runId}` },
        (activities) =>
          activities.trainRun({
            paths,
            commands,
            runId: plan.runId,
            configPath: prepared.configPath,
            owner,
            noCheckpointMarker: input.noCheckpointMarker,
            noProgress: timeouts.no_progress,
            ...(input.resumeFlag === undefined ? {} : { resumeFlag: input.resumeFlag }),
            ...onLaneJob,
            ...store,
            ...(prepared.inputs === undefined ? {} : { inputs: prepared.inputs }),
            ...(prepared.data === undefined ? {} : { data: prepared.data }),
          }),
      );
      // Not a seed field, and only when it happened: how many lanes the training lost.
      // With the lost attempts' GPU time, and when the first of them started.
      const lost = trained.lost > 0 ? { lost_lanes: trained.lost, first_started: now } : {};
      if (trained.ok) {
        const { selected: chosen, admission: admitted, ...outcome } = trained.value;
        selected = chosen;
        admission = admitted;
        const seconds =
          trained.lostGpuSeconds > 0
            ? { gpu_seconds: Math.round(((outcome.gpu_seconds ?? 0) + trained.lostGpuSeconds) * 10) / 10 }
            : {};
        const fields = { ...outcome, ...seconds };
        const cost = gpuCost(fields.gpu_seconds, input.usdPerGpuHour);
        run = runRow(plan, prepared.configPath, prepared.configSha256, { ...fields, ...cost, ...lost });
      } else if (laneUnavailable(trained.error)) unavailable = true;
      else {
        const finished = new Date().toISOString();
        run = runRow(plan, prepared.configPath, prepared.configSha256, {
          status: 'train_failed',
          started: now,
          finished,
          error: stepFailureText(trained.error, {
            timeoutKey: 'timeouts.train',
            timeout: timeouts.train,
            heartbeat: timeouts.heartbeat,
            attemptsKey: 'retries.train',
            attempts: retries.train,
          }),
          ...lost,
        });
      }
    }
  }
  if (run && (run.status === 'trained' || run.status === 'ensemble')) {
    const names = input.unscored ?? run.checkpoints;
    const scored = run;
    const evaluated = await onLane(
      input,
      { kind: 'evaluation', timeout: timeouts.evaluate, attempts: retries.evaluate, what: `evaluating ${run.run_id}` },
      (activities) =>
        activities.evaluateRun({
          paths,
          commands,
          run: scored,
          checkpoints: names,
          role: 'test',
          ...(input.itemErrors === undefined ? {} : { itemErrors: input.itemErrors }),
          ...onLaneJob,
          ...store,
        }),
    );
    if (evaluated.ok) {
      // What its evaluator held of the GPU goes to the generation apart from the rows (never recorded in them).
      evals = evaluated.value.map(({ gpu_peak_mib: peak, ...row }) => {
        if (peak !== undefined) evalPeakMiB = Math.max(evalPeakMiB ?? 0, peak);
        return row;
      });
    } else if (laneUnavailable(evaluated.error)) {
      unavailable = true;
      unscored = names;
    } else {
      log.warn('evaluation failed; its checkpoints count as scored', {
        runId: run.run_id,
        error: failureText(evaluated.error),
      });
      const finished = new Date().toISOString();
      evals = names.map((name) => failedEvalRow(scored, name, 'test', paths, finished));
    }
  }
  const report: RunReport = {
    childId: workflowInfo().workflowId,
    jobId: input.jobId,
    // An evaluation-only retry does not report the run row again; an ensemble's first scoring does.
    run: input.run && !input.reportRun ? null : run,
    evals,
    selected,
    laneUnavailable: unavailable,
    unscored,
    // Only a training this child ran on a GPU lane has one (reports in older histories have none).
    ...(admission === undefined ? {} : { admission }),
    ...(evalPeakMiB === undefined ? {} : { evalPeakMiB }),
  };
  await deliver(runReportedSignal, report);
  return report;
}

/** The job's lane terms: the generation's, or (inputs from before them) the training's need for all its steps. */
function laneJobOfInput(input: TrainingRunInput): { laneJob?: LaneJob } {
  if (input.laneJob !== undefined) return { laneJob: input.laneJob };
  if (input.gpuNeed === undefined) return {};
  return {
    laneJob: {
      needs: { train: input.gpuNeed, evaluate: input.gpuNeed },
      oom: { retries: input.retries.oom ?? DEFAULT_OOM_RETRIES },
    },
  };
}

/** What the training's GPU time cost at its lane's price, to the cent's hundredth, when both are known. */
function gpuCost(seconds: number | undefined, usdPerGpuHour: number | undefined): { gpu_usd?: number } {
  if (seconds === undefined || usdPerGpuHour === undefined) return {};
  return { gpu_usd: Math.round((seconds / 3600) * usdPerGpuHour * 10_000) / 10_000 };
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
