import { access } from 'node:fs/promises';
import { join } from 'node:path';
import { checkpointStem, padGeneration, padRound } from '../../rules/ids.js';
import type { Role } from '../../rules/types.js';
import type { LoopPaths } from '../types.js';
import { STEPS, stepLog } from '../../contract/steps.js';

// Where each step's files go (docs/contract.md, the loop's own files); existing tools read these
// folders. The log names are the catalogue's (contract/steps.ts).

/** The folder every step's log goes to. */
export function logsDir(stateDir: string): string {
  return join(stateDir, 'logs');
}

/** A step's log in `logs/`, named by its catalogue template: `stepLogFile(stateDir, stepLog(...))`. */
export function stepLogFile(stateDir: string, name: string): string {
  return join(logsDir(stateDir), name);
}

/** `logs/split-gen-GGG.log`: the three split commands of one generation. */
export function splitLog(stateDir: string, generation: number): string {
  return stepLogFile(stateDir, stepLog(STEPS.buildSplit.logs.split, { generation: padGeneration(generation) }));
}

/** `logs/<runId>.train.log`. */
export function trainLog(stateDir: string, runId: string): string {
  return stepLogFile(stateDir, stepLog(STEPS.trainRun.logs.train, { runId }));
}

/** `logs/<runId>.<stem>.<role>.eval.log`: one checkpoint scored by the single-checkpoint form. */
export function evalLog(stateDir: string, runId: string, checkpointName: string, role: Role): string {
  const checkpoint = checkpointStem(checkpointName);
  return stepLogFile(stateDir, stepLog(STEPS.evaluateRun.logs.checkpoint, { runId, checkpoint, role }));
}

/** `logs/<runId>.<role>.eval.log`: one batch evaluator process for a run's checkpoints. */
export function batchEvalLog(stateDir: string, runId: string, role: Role): string {
  return stepLogFile(stateDir, stepLog(STEPS.evaluateRun.logs.batch, { runId, role }));
}

/** `logs/<runId>.<role>.jobs.json`: the batch evaluator's jobs file. */
export function jobsFile(stateDir: string, runId: string, role: Role): string {
  return join(logsDir(stateDir), `${runId}.${role}.jobs.json`);
}

/** `configs/gen-GGG/round-RRRR/NAME.yaml`: the job config of one candidate in one round. */
export function configFile(stateDir: string, generation: number, round: number, candidate: string): string {
  return join(stateDir, 'configs', `gen-${padGeneration(generation)}`, `round-${padRound(round)}`, `${candidate}.yaml`);
}

/** `owners/<runId>`: holds the owner (training workflow id) of a run directory the loop created. */
export function ownerMarker(stateDir: string, runId: string): string {
  return join(stateDir, 'owners', runId);
}

/** `evals/<runId>`: every report and scores file of one run's checkpoints, on every role. */
export function evalsDir(stateDir: string, runId: string): string {
  return join(stateDir, 'evals', runId);
}

/** A run's directory under the runs root. */
export function runDir(paths: Pick<LoopPaths, 'runsRoot'>, runId: string): string {
  return join(paths.runsRoot, runId);
}

/** `--score-cache-dir D` when the loop has a score cache. */
export function scoreCacheArgs(paths: Pick<LoopPaths, 'scoreCacheDir'>): string[] {
  return paths.scoreCacheDir === null ? [] : ['--score-cache-dir', paths.scoreCacheDir];
}

/** `<state_dir>/STOP`: the seed's way to stop a loop gracefully, honoured here (src/workers/stop-file.ts). */
export function stopFilePath(stateDir: string): string {
  return join(stateDir, 'STOP');
}

export async function stopFileExists(stateDir: string): Promise<boolean> {
  return access(stopFilePath(stateDir)).then(
    () => true,
    () => false,
  );
}
