import { join } from 'node:path';
import { DEFAULT_NO_PROGRESS } from '../config/loop-config.js';
import { durationMs } from '../config/duration.js';
import { describeEnd, runLoopStep, type LoopStepResult } from './support/loop-step.js';
import { logContains } from './support/log-search.js';
import { exists, moveAside } from './support/move-aside.js';
import { readOwner, writeOwner } from './support/owner.js';
import { appendLogLine } from './support/reports.js';
import { evalsDir, runDir, scoreCacheArgs, trainLog } from './support/paths.js';
import { collectCheckpoints, epochsRun, resumePoint, selectedCheckpoint, type ResumePoint } from './support/run-dir.js';
import { laneAdmission } from './support/lane-admission.js';
import { fetchStepFiles, runDirFiles, uploadStepFiles } from './support/step-files.js';
import { markInStore, trimAfterStep, unmarkInStore } from './support/run-dir-cache.js';
import { badInput, DATA_MISMATCH, JOB_CONFIG_MISSING, STALE_RUN_DIR } from './support/step-errors.js';
import { dataFingerprint, dataMismatch } from '../artifacts/data-fingerprint.js';
import { returnCode } from './support/subprocess.js';
import { type StepGpuUse } from './support/step-types.js';
import type { TrainInput, TrainOutcome } from './types.js';
import { definedFields } from '../support/defined-fields.js';

/**
 * Trains one run (docs/behaviour.md, training). The run directory is marked as this owner's before the
 * trainer creates it; a directory of ours from a lost earlier attempt is resumed from its newest
 * complete epoch when loop.yaml sets `resume_flag` (docs/contract.md, "Resuming a lost run"), else
 * moved aside and the run trained afresh, while anybody else's directory is refused untouched. The reports of an
 * earlier training of the run (`<state_dir>/evals/<run_id>/`) are moved aside with it: they
 * scored checkpoints this training replaces, and evaluation reuses every report it finds.
 *
 * trained: exit 0 and the checkpoints could be collected; no_eligible_checkpoint: exit 1 and
 * this attempt's log holds the trainer's marker line; otherwise train_failed. A trainer whose log
 * and run directory stay unchanged for `timeouts.no_progress` is hung: its group is killed and the
 * run is train_failed with that reason (an outcome, like a crash: not an attempt to repeat).
 */
export async function trainRun(input: TrainInput): Promise<TrainOutcome> {
  const { paths, runId } = input;
  // On a fleet without a shared disk each host has its own data_root: the run trains on a copy that is the orchestrator's.
  if (input.data !== undefined) {
    const mismatch = dataMismatch(paths.dataRoot, input.data, await dataFingerprint(paths.dataRoot));
    if (mismatch !== null) throw badInput(mismatch, DATA_MISMATCH);
  }
  const started = new Date().toISOString();
  const dir = runDir(paths, runId);
  const resume = await claimRunDir(input, dir);
  const log = trainLog(paths.stateDir, runId);
  await gatherInputs(input, log);
  if (resume !== null) {
    await appendLogLine(
      log,
      `train: resuming ${runId} from epoch ${resume.epoch} (${resume.checkpoint}), the newest epoch an earlier attempt completed (loop.yaml resume_flag)`,
    );
  }
  const noProgress = input.noProgress ?? DEFAULT_NO_PROGRESS;
  const result = await runTrainer(input, dir, log, resume, noProgress);
  const train_rc = returnCode(result);
  const common = { train_rc, epochs_run: await epochsRun(dir), started };
  // After the seed's fields (a run row keeps their order): what the trainer used of its GPU lane.
  const admitted = laneAdmission(result);
  const gpu = {
    ...gpuFields(result.gpu),
    ...definedFields({ admission: admitted }),
    ...(result.oomRetries > 0 ? { oom_retries: result.oomRetries } : {}),
  };
  if (result.stalled) {
    const hung = `no progress for ${noProgress} (loop.yaml timeouts.no_progress): no new output in its log or run directory; killed`;
    await appendLogLine(log, `train: ${hung}`).catch(() => undefined);
    return { ...failed(common, `${hung}; see ${log}`), ...gpu };
  }
  if (train_rc === 0) return trainedOutcome(input, dir, log, common, gpu);
  if (train_rc === 1 && (await logContains(log, result.logStart, input.noCheckpointMarker))) {
    return {
      ...common,
      status: 'no_eligible_checkpoint',
      checkpoints: [],
      error: null,
      finished: new Date().toISOString(),
      selected: null,
      ...gpu,
    };
  }
  if (result.oom !== undefined) return { ...failed(common, `${result.oom}; see ${log}`), ...gpu };
  return { ...failed(common, `trainer ended with ${describeEnd(result)}; see ${log}`), ...gpu };
}

/**
 * Makes the run directory this owner's before the trainer writes it: a directory of anybody
 * else's is refused untouched; one of ours from a lost attempt is kept to resume from (with
 * `resume_flag` and a complete epoch) or moved aside, with the earlier training's reports when
 * the run trains afresh. Returns where training resumes, or null for a fresh start.
 */
async function claimRunDir(input: TrainInput, dir: string): Promise<ResumePoint | null> {
  const { paths, runId, owner } = input;
  // Trained here again: nothing of its directory is the host cache's to delete until it is uploaded again.
  if (input.artifacts !== undefined) await unmarkInStore(dir);
  const marked = await readOwner(paths.stateDir, runId);
  let resume: ResumePoint | null = null;
  if (await exists(dir)) {
    if (marked !== owner) {
      const whose = marked === null ? 'it has no owner marker' : `its owner marker names ${marked}`;
      throw badInput(`run directory ${dir} is not this loop's (${whose}); it is left untouched`, STALE_RUN_DIR);
    }
    // An earlier attempt of ours was lost (its lane died, it was preempted): with a resume flag
    // its epochs are kept and training goes on from the newest complete one.
    if (input.resumeFlag !== undefined) resume = await resumePoint(dir);
    if (resume === null) await moveAside(dir);
  }
  // Reports of checkpoints a resumed run keeps still score them; a fresh training replaces them.
  if (resume === null) await moveAside(evalsDir(paths.stateDir, runId));
  if (marked !== owner) {
    await writeOwner(paths.stateDir, runId, owner);
  }
  return resume;
}

/** Makes sure the run's job config (and, with a store, its split) is on this host before it trains. */
async function gatherInputs(input: TrainInput, log: string): Promise<void> {
  // With a store the orchestrator's host wrote the job config and split: fetched here unless present.
  if (input.artifacts !== undefined) await fetchStepFiles(input.artifacts, input.inputs ?? [], log);
  // Gone with an emptied state dir since it was written: the training run writes it again.
  if (!(await exists(input.configPath))) {
    throw badInput(
      `run ${input.runId}: its job config ${input.configPath} is gone (was the state dir emptied?)`,
      JOB_CONFIG_MISSING,
    );
  }
}

/** The trainer's command line, resuming from `from` when loop.yaml sets `resume_flag`. */
function trainCommand(input: TrainInput, dir: string, from: ResumePoint | null): string[] {
  return [
    ...input.commands.train,
    ...['--config', input.configPath],
    ...['--output-root', input.paths.runsRoot],
    ...['--run-id', input.runId],
    ...scoreCacheArgs(input.paths),
    ...(from === null || input.resumeFlag === undefined ? [] : [input.resumeFlag, join(dir, from.checkpoint)]),
  ];
}

/**
 * Runs the trainer on its lane, killed when its log and run directory stay quiet for
 * `noProgress`, and tried again after an out-of-memory.
 */
async function runTrainer(
  input: TrainInput,
  dir: string,
  log: string,
  resume: ResumePoint | null,
  noProgress: string,
): Promise<LoopStepResult> {
  const { paths, runId } = input;
  return runLoopStep(paths, {
    step: 'train',
    commandKey: 'train',
    command: trainCommand(input, dir, resume),
    log,
    progress: { watch: [dir], quietMs: durationMs(noProgress) },
    need: 'train',
    // After an out-of-memory the trainer goes on from its newest complete epoch (with loop.yaml
    // resume_flag), else starts afresh in a clean directory.
    again: async () => {
      const from = input.resumeFlag === undefined ? null : await resumePoint(dir);
      if (from === null) {
        await moveAside(dir);
        await moveAside(evalsDir(paths.stateDir, runId));
      } else await appendLogLine(log, `train: resuming ${runId} from epoch ${from.epoch} (${from.checkpoint})`);
      return trainCommand(input, dir, from);
    },
  });
}

/**
 * The outcome of a trainer that exited 0: trained with its checkpoints (uploaded first, with a
 * store), or train_failed when they cannot be collected.
 */
async function trainedOutcome(
  input: TrainInput,
  dir: string,
  log: string,
  common: Pick<TrainOutcome, 'train_rc' | 'epochs_run' | 'started'>,
  gpu: Pick<TrainOutcome, 'gpu_seconds' | 'gpu_peak_mib' | 'admission' | 'oom_retries'>,
): Promise<TrainOutcome> {
  let checkpoints: string[];
  let selected: TrainOutcome['selected'];
  try {
    checkpoints = await collectCheckpoints(dir);
    selected = await selectedCheckpoint(dir);
  } catch (error) {
    return {
      ...failed(
        common,
        `checkpoints could not be collected: ${error instanceof Error ? error.message : String(error)}`,
      ),
      ...gpu,
    };
  }
  // With a store: the run directory goes up before the run is recorded trained, for evaluations elsewhere.
  let files = {};
  if (input.artifacts !== undefined) {
    const uploaded = await uploadStepFiles(input.artifacts, await runDirFiles(dir), log);
    // The directory is now a copy of the store's: the host keeps it while it fits (keep_local_gib).
    await markInStore(dir, uploaded);
    await trimAfterStep(input.artifacts, input.paths.runsRoot, log);
    files = { files: [...(input.inputs ?? []), ...uploaded] };
  }
  return {
    ...common,
    status: 'trained',
    checkpoints,
    error: null,
    finished: new Date().toISOString(),
    selected,
    ...gpu,
    ...files,
  };
}

/** What the trainer used of its GPU lane, as run row fields: its seconds, and its peak when nvidia-smi listed its processes. */
function gpuFields(gpu: StepGpuUse | undefined): Pick<TrainOutcome, 'gpu_seconds' | 'gpu_peak_mib'> {
  if (gpu === undefined) return {};
  return { gpu_seconds: gpu.seconds, ...(gpu.peakMiB > 0 ? { gpu_peak_mib: gpu.peakMiB } : {}) };
}

function failed(common: Pick<TrainOutcome, 'train_rc' | 'epochs_run' | 'started'>, error: string): TrainOutcome {
  return {
    ...common,
    status: 'train_failed',
    checkpoints: [],
    error,
    finished: new Date().toISOString(),
    selected: null,
  };
}
