import type { LoopPaths } from '../types.js';
import { activityHooks } from './activity-context.js';
import { appendLogLine } from './reports.js';
import { isCommandNotFound } from './step-errors.js';
import { runStep, type RunStepOptions, type StepResult } from './subprocess.js';

/** One command of the subprocess contract, as an activity runs it. */
export interface LoopStep {
  /** e.g. `train`; with the command's loop.yaml key it names the command in errors. */
  readonly step: string;
  /** The loop.yaml key of the command, e.g. `train` for `commands.train`. */
  readonly commandKey: string;
  readonly command: readonly string[];
  readonly log: string;
  /** Kill the command when its log and these paths show no change for a while (runStep's `progress`). */
  readonly progress?: RunStepOptions['progress'];
  /** What its job may grow to on the lane's GPU (runStep's `gpuNeed`). */
  readonly gpuNeed?: RunStepOptions['gpuNeed'];
}

/**
 * Runs a step in the loop's workdir, heartbeating and cancellable when inside an activity. A
 * command that cannot start says so in the step's log too, where an operator looks first.
 */
export async function runLoopStep(paths: LoopPaths, step: LoopStep): Promise<StepResult> {
  const hooks = activityHooks();
  try {
    return await runStep({
      step: step.step,
      source: `loop.yaml commands.${step.commandKey}`,
      command: step.command,
      cwd: paths.workdir,
      log: step.log,
      heartbeat: hooks.heartbeat,
      heartbeatIntervalMs: hooks.heartbeatIntervalMs,
      signal: hooks.signal,
      progress: step.progress,
      ...(step.gpuNeed === undefined ? {} : { gpuNeed: step.gpuNeed }),
    });
  } catch (error) {
    if (isCommandNotFound(error))
      await appendLogLine(step.log, `${step.step}: ${error.message}`).catch(() => undefined);
    throw error;
  }
}

/** How a finished step ended, for messages: `exit code 3` or `signal SIGKILL`. */
export function describeEnd(result: Pick<StepResult, 'exitCode' | 'signal'>): string {
  return result.exitCode !== null ? `exit code ${result.exitCode}` : `signal ${result.signal ?? 'unknown'}`;
}
