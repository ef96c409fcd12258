import { zeroPad } from '../rules/ids.js';
import { runLoopStep } from './support/loop-step.js';
import { packagePathFromLog } from './support/package-path.js';
import { uploadPackage } from './support/package-upload.js';
import { stepLogFile } from './support/paths.js';
import { STEPS, stepLog } from '../contract/steps.js';
import { appendLogLine } from './support/reports.js';
import { isCommandNotFound } from './support/step-errors.js';
import { returnCode } from './support/subprocess.js';
import { withStepFiles } from './support/run-dir-cache.js';
import type { StoredPackage } from '../artifacts/package-store.js';
import type { PackageChampion, PackageInput, PackageOutcome } from './types.js';
import { definedFields } from '../support/defined-fields.js';

/**
 * Runs the package command for one champion to its end (docs/contract.md, package):
 * `--checkpoint C --config F` or `--manifest M`, then `--test-eval`,
 * `--generation` and `--state-dir`. A command that cannot start is an outcome, not a failure.
 * With loop.yaml `artifacts:` a package the command made (the path it printed last) is uploaded
 * to the store before the outcome is returned: a finished row means the package is in the store.
 */
export async function packageChampion(input: PackageInput): Promise<PackageOutcome> {
  const { paths, champion } = input;
  const command = packageCommand(input.command, champion, paths.stateDir);
  const log = packageLog(paths.stateDir, champion);
  // With a store the champion was trained and scored on another host: its files are fetched here unless present.
  if (input.store === undefined) return runPackage(input, command, log);
  return withStepFiles(input.store.settings, paths.runsRoot, champion.files ?? [], log, () =>
    runPackage(input, command, log),
  );
}

/** Runs the package command (the champion's files on this host); with a store, uploads what it made. */
async function runPackage(input: PackageInput, command: string[], log: string): Promise<PackageOutcome> {
  const { paths } = input;
  try {
    const result = await runLoopStep(paths, { step: 'package', commandKey: 'package', command, log });
    const exitCode = returnCode(result);
    const stored = input.store && exitCode === 0 ? await store(input.store, input, log) : undefined;
    return {
      launched: true,
      command,
      pid: result.pid,
      log,
      started: result.started,
      exitCode,
      finished: stored === undefined ? result.finished : new Date().toISOString(),
      ...definedFields({ stored }),
    };
  } catch (error) {
    if (isCommandNotFound(error)) {
      return { launched: false, error: error.message, time: new Date().toISOString() };
    }
    throw error;
  }
}

/** The package in the store; undefined (said in the log) when the command printed no path of one. */
async function store(
  target: NonNullable<PackageInput['store']>,
  input: PackageInput,
  log: string,
): Promise<StoredPackage | undefined> {
  const path = await packagePathFromLog(log, input.paths.workdir);
  if (path === null) {
    await appendLogLine(
      log,
      'artifacts: the package command printed no path of an existing file or folder (docs/contract.md, package): nothing uploaded',
    );
    return undefined;
  }
  return uploadPackage(target.settings, { loopId: target.loopId, champion: input.champion }, path, log);
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
  const epoch = champion.manifest === undefined && champion.epoch !== null ? `-${zeroPad(champion.epoch, 4)}` : '';
  return stepLogFile(stateDir, stepLog(STEPS.packageChampion.logs.package, { runId: champion.run_id, epoch }));
}
