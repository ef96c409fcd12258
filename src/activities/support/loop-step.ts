import { ApplicationFailure } from '@temporalio/common';
import type { LoopPaths } from '../types.js';
import { LANE_STOPPED } from '../../contract/lane-job.js';
import { DEFAULT_OOM_RETRIES } from '../../contract/lane-job.js';
import { needOf, oomDecision, type GpuNeed, type StepNeedKey } from '../../rules/gpu-needs.js';
import { outOfMemory } from '../../rules/out-of-memory.js';
import { activityHooks } from './activity-context.js';
import { logSince } from './log-search.js';
import { appendLogLine } from './reports.js';
import { isCommandNotFound } from './step-errors.js';
import { currentStepScope } from './step-scope.js';
import { runStep, type RunStepOptions } from './subprocess.js';
import { type StepGpuUse, type StepHeartbeat, type StepResult } from './step-types.js';
import { definedFields } from '../../support/defined-fields.js';
import type { CommandKey } from '../../contract/steps.js';

/** One command of the subprocess contract, as an activity runs it. */
export interface LoopStep {
  /** e.g. `train`; with the command's loop.yaml key it names the command in errors. */
  readonly step: string;
  /** The loop.yaml key of the command, e.g. `train` for `commands.train`. */
  readonly commandKey: CommandKey;
  readonly command: readonly string[];
  readonly log: string;
  /** Kill the command when its log and these paths show no change for a while (runStep's `progress`). */
  readonly progress?: RunStepOptions['progress'];
  /** Which of its job's GPU needs the lane admits it by (default: evaluate). */
  readonly need?: StepNeedKey;
  /**
   * The command to run again after it ran out of GPU memory (a trainer resumes from its newest
   * checkpoint); also where a step clears what the failed run left. Absent: the same command.
   */
  readonly again?: () => Promise<readonly string[]>;
}

/** How a step ended, after every out-of-memory wait it had. */
export interface LoopStepResult extends StepResult {
  /** How many times it ran out of GPU memory and waited for room to run again. */
  readonly oomRetries: number;
  /** Why it ran out of GPU memory and was not run again, when that is how it ended. */
  readonly oom?: string;
}

/**
 * Runs a step in the loop's workdir, heartbeating and cancellable when inside an activity. A
 * command that cannot start says so in the step's log too, where an operator looks first.
 *
 * On a GPU lane (the step was admitted by its need) a CUDA out-of-memory is not the step's
 * failure: the lane admits it again once there is room for what it held plus what it asked for,
 * up to loop.yaml `retries.oom` times, and its GPU time adds up over every run.
 */
export async function runLoopStep(paths: LoopPaths, step: LoopStep): Promise<LoopStepResult> {
  const hooks = activityHooks();
  const job = currentStepScope()?.job;
  let need: GpuNeed | undefined = needOf(job?.needs, step.need ?? 'evaluate');
  let command = step.command;
  let oomRetries = 0;
  let seconds = 0;
  for (;;) {
    let result: StepResult;
    // How long the command of this run has been running on a GPU (its heartbeats say), for a lane
    // lost under it. Only a lane that reads its GPU gives a beat its device: on any other the time
    // is no GPU time (a CPU lane's preempted attempt was once counted as gpu_seconds).
    let runningMs = 0;
    const heartbeat = (details: StepHeartbeat): void => {
      if (details.pid > 0 && details.device !== undefined) runningMs = details.elapsedMs;
      hooks.heartbeat?.(details);
    };
    try {
      result = await runStep({
        step: step.step,
        source: `loop.yaml commands.${step.commandKey}`,
        command,
        cwd: paths.workdir,
        log: step.log,
        heartbeat,
        heartbeatIntervalMs: hooks.heartbeatIntervalMs,
        signal: hooks.signal,
        progress: step.progress,
        ...definedFields({ gpuNeed: need }),
      });
    } catch (error) {
      if (isCommandNotFound(error))
        await appendLogLine(step.log, `${step.step}: ${error.message}`).catch(() => undefined);
      // A lane stopped under the step: the time its runs had on the GPU goes with the failure, for the row.
      if (currentStepScope()?.stopping?.aborted === true && error instanceof Error && error.name === LANE_STOPPED)
        throw laneStopped(error.message, Math.round((seconds + runningMs / 1000) * 10) / 10);
      throw error;
    }
    seconds += result.gpu?.seconds ?? 0;
    const total = { ...result, ...withSeconds(result.gpu, seconds), oomRetries };
    // Only a step its lane admitted by GPU memory can wait for more of it.
    if (result.exitCode === 0 || result.stalled || result.admitted === undefined) return total;
    const oom = outOfMemory(await logSince(step.log, result.logStart), job?.oom.marker);
    if (oom === null) return total;
    const decision = oomDecision({
      needMiB: result.admitted.needMiB,
      peakMiB: result.gpu?.peakMiB ?? 0,
      askedMiB: oom.askedMiB,
      shared: result.gpu?.shared ?? null,
      retries: oomRetries,
      limit: job?.oom.retries ?? DEFAULT_OOM_RETRIES,
      totalMiB: result.gpu?.totalMiB ?? null,
    });
    if (!decision.retry) {
      await appendLogLine(step.log, `${step.step}: out of GPU memory, not run again: ${decision.why}`);
      return { ...total, oom: `${decision.why}: ${oom.line}` };
    }
    oomRetries += 1;
    need = decision.need;
    await appendLogLine(
      step.log,
      `${step.step}: out of GPU memory (${oom.line.slice(0, 120)}); waiting for ${(need.mib / 1024).toFixed(1)} GiB (${need.why}), out-of-memory retry ${oomRetries} of ${job?.oom.retries ?? DEFAULT_OOM_RETRIES}`,
    );
    command = step.again === undefined ? step.command : await step.again();
  }
}

/** The failure of a step whose lane stopped under it, with the seconds its runs had (lane-attempts.ts reads them). */
function laneStopped(message: string, seconds: number): ApplicationFailure {
  return ApplicationFailure.create({ type: LANE_STOPPED, message, details: [{ gpuSeconds: seconds }] });
}

/** A step's GPU use with its seconds over every run it had. */
function withSeconds(gpu: StepGpuUse | undefined, seconds: number): { gpu?: StepGpuUse } {
  return gpu === undefined ? {} : { gpu: { ...gpu, seconds: Math.round(seconds * 10) / 10 } };
}

/** How a finished step ended, for messages: `exit code 3` or `signal SIGKILL`. */
export function describeEnd(result: Pick<StepResult, 'exitCode' | 'signal'>): string {
  return result.exitCode !== null ? `exit code ${result.exitCode}` : `signal ${result.signal ?? 'unknown'}`;
}
