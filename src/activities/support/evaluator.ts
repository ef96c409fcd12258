import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { evalReportPath, evalScoresPath, isEnsembleRun, type EvalSource } from '../../ledger/eval-row.js';
import type { Role } from '../../rules/types.js';
import { describeEnd, runLoopStep, type LoopStepResult } from './loop-step.js';
import { exists, moveAside } from './move-aside.js';
import { batchEvalLog, evalLog, jobsFile, runDir, scoreCacheArgs } from './paths.js';
import { readReportAt, type ReportRead } from './reports.js';
import { validationFile } from './run-dir.js';
import type { LoopPaths, StepCommands } from '../types.js';
import type { StepResult } from './step-types.js';

/** What every evaluation needs: where the loop's files are and the evaluator commands. */
export interface EvalContext {
  readonly paths: LoopPaths;
  readonly commands: StepCommands;
  /** Told of each evaluator process's end (how its lane admitted it, what it held of the GPU). */
  readonly onStep?: (result: StepResult) => void;
}

/**
 * Scores one checkpoint (or an ensemble's manifest) on a role with the single-checkpoint form
 * (docs/contract.md, evaluate). A finished report is reused; scores left by a killed evaluator
 * are moved aside before it runs again.
 */
export async function evaluateOne(
  context: EvalContext,
  run: EvalSource,
  name: string,
  role: Role,
  band: string | null,
): Promise<ReportRead> {
  const { paths, commands } = context;
  const output = evalReportPath(paths.stateDir, run.run_id, name, role);
  const log = evalLog(paths.stateDir, run.run_id, name, role);
  if (await exists(output)) {
    return readReportAt(output, log);
  }
  await mkdir(dirname(output), { recursive: true });
  const scores = evalScoresPath(paths.stateDir, run.run_id, name, role);
  await moveAside(scores);
  const ensemble = isEnsembleRun(run);
  const target = ensemble
    ? [...commands.evaluate_ensemble, ...['--manifest', run.config_path]]
    : [
        ...commands.evaluate,
        ...['--config', run.config_path],
        ...['--checkpoint', join(runDir(paths, run.run_id), name)],
      ];
  const command = [
    ...target,
    ...['--output', output],
    ...['--role', role],
    ...['--scores-output', scores],
    ...(band === null ? [] : ['--band-scores', band]),
    ...scoreCacheArgs(paths),
  ];
  const result = await runLoopStep(paths, {
    step: `evaluate ${role}`,
    commandKey: ensemble ? 'evaluate_ensemble' : 'evaluate',
    command,
    log,
    // Run again after an out-of-memory: the scores a killed evaluator left go aside first.
    again: async () => {
      await moveAside(scores);
      return command;
    },
  });
  context.onStep?.(result);
  if (result.exitCode !== 0) {
    return { report: null, problem: evaluatorFailure(result), evaluatorFailed: true, log };
  }
  return readReportAt(output, log);
}

/** Why an evaluator that did not end well left no report: how it ended, and after an out-of-memory not run again, why. */
function evaluatorFailure(result: LoopStepResult): string {
  const oom = result.oom === undefined ? '' : ` (out of GPU memory, not run again: ${result.oom})`;
  return `evaluator ended with ${describeEnd(result)}${oom}`;
}

/**
 * Scores several checkpoints of one run in ONE evaluator process (docs/contract.md, evaluate):
 * the data set loads once. Finished reports are reused; an ensemble goes through evaluateOne.
 */
export async function evaluateMany(
  context: EvalContext,
  run: EvalSource,
  names: readonly string[],
  role: Role,
  bands: ReadonlyMap<string, string | null>,
): Promise<Map<string, ReportRead>> {
  const reads = new Map<string, ReportRead>();
  if (isEnsembleRun(run)) {
    for (const name of names) {
      reads.set(name, await evaluateOne(context, run, name, role, bands.get(name) ?? null));
    }
    return reads;
  }
  const { paths, commands } = context;
  const jobs: Record<string, string>[] = [];
  const scored = new Set<string>();
  for (const name of names) {
    const output = evalReportPath(paths.stateDir, run.run_id, name, role);
    if (await exists(output)) {
      continue;
    }
    await mkdir(dirname(output), { recursive: true });
    const scores = evalScoresPath(paths.stateDir, run.run_id, name, role);
    await moveAside(scores);
    const band = bands.get(name) ?? null;
    scored.add(name);
    jobs.push({
      checkpoint: join(runDir(paths, run.run_id), name),
      output,
      scores_output: scores,
      ...(band === null ? {} : { band_scores: band }),
    });
  }
  const log = batchEvalLog(paths.stateDir, run.run_id, role);
  let failure: string | null = null;
  if (jobs.length > 0) {
    const jobsPath = jobsFile(paths.stateDir, run.run_id, role);
    await mkdir(dirname(jobsPath), { recursive: true });
    await writeFile(jobsPath, JSON.stringify(jobs, null, 1));
    const command = [
      ...commands.evaluate,
      ...['--config', run.config_path],
      ...['--role', role],
      ...['--jobs', jobsPath],
      ...scoreCacheArgs(paths),
    ];
    const result = await runLoopStep(paths, {
      step: `evaluate ${role}`,
      commandKey: 'evaluate',
      command,
      log,
      // Run again after an out-of-memory: what the killed evaluator left goes aside first.
      again: async () => {
        for (const job of jobs) {
          await moveAside(job.output as string);
          await moveAside(job.scores_output as string);
        }
        return command;
      },
    });
    context.onStep?.(result);
    failure = result.exitCode === 0 ? null : evaluatorFailure(result);
  }
  for (const name of names) {
    const output = evalReportPath(paths.stateDir, run.run_id, name, role);
    const failed = scored.has(name) ? failure : null;
    reads.set(name, await readReportAt(output, log, failed !== null, failed));
  }
  return reads;
}

/**
 * The validation scores that fix one checkpoint's reject band (docs/behaviour.md, evaluation):
 * training's `validation-epoch-NNNN.scores.jsonl`, else (older runs, ensembles) the checkpoint
 * scored once on the validation role. Null when neither gives a scores file.
 */
export async function bandScores(context: EvalContext, run: EvalSource, name: string): Promise<string | null> {
  const { paths } = context;
  if (!isEnsembleRun(run)) {
    const local = validationFile(runDir(paths, run.run_id), name, 'scores.jsonl');
    if (await exists(local)) {
      return local;
    }
  }
  const read = await evaluateOne(context, run, name, 'validation', null);
  if (read.evaluatorFailed) {
    return null;
  }
  const scores = evalScoresPath(paths.stateDir, run.run_id, name, 'validation');
  return (await exists(scores)) ? scores : null;
}
