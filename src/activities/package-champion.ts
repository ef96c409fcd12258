import { join } from 'node:path';
import { zeroPad } from '../rules/ids.js';
import { runLoopStep } from './support/loop-step.js';
import { logsDir } from './support/paths.js';
import { isCommandNotFound } from './support/step-errors.js';
import { returnCode } from './support/subprocess.js';
import type { PackageChampion, PackageInput, PackageOutcome } from './types.js';

/**
 * Runs the package command for one champion to its end (docs/contract.md, package):
 * `--checkpoint C --config F` or `--manifest M`, then `--test-eval`,
 * `--generation` and `--state-dir`. A command that cannot start is an outcome, not a failure.
 */
export async function packageChampion(input: PackageInput): Promise<PackageOutcome> {
  const { paths, champion } = input;
  const command = packageCommand(input.command, champion, paths.stateDir);
  const log = packageLog(paths.stateDir, champion);
  try {
    const result = await runLoopStep(paths, { step: 'package', commandKey: 'package', command, log });
    return {
      launched: true,
      command,
      pid: result.pid,
      log,
      started: result.started,
      exitCode: returnCode(result),
      finished: result.finished,
    };
  } catch (error) {
    if (isCommandNotFound(error)) {
      return { launched: false, error: error.message, time: new Date().toISOString() };
    }
    throw error;
  }
}

/** The package command line for one champion. */
function packageCommand(base: readonly string[], champion: PackageChampion, stateDir: string): string[] {
  const source =
    champion.manifest === undefined
      ? ['--checkpoint', champion.checkpoint, '--config', champion.config_path]
      : ['--manifest', champion.manifest];
  return [
    ...base,
    ...source,
    ...['--test-eval', champion.eval_json],
    ...['--generation', String(champion.generation)],
    ...['--state-dir', stateDir],
  ];
}

/** `logs/package-<runId>-NNNN.log` (the epoch), or `logs/package-<runId>.log` for an ensemble. */
export function packageLog(stateDir: string, champion: PackageChampion): string {
  const suffix = champion.manifest === undefined && champion.epoch !== null ? `-${zeroPad(champion.epoch, 4)}` : '';
  return join(logsDir(stateDir), `package-${champion.run_id}${suffix}.log`);
}
