import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { packagePathFromLog } from '../activities/support/package-path.js';
import type { LoopPaths, PackageChampion } from '../activities/types.js';
import { readReport } from '../contract/read.js';
import { LEDGER_FILE } from '../ledger-copy/copy-files.js';

// What a model version says about its champion, read on the package worker from the loop's files.

export interface ChampionFacts {
  readonly failToPass: string;
  readonly passToFail: string;
  /** Reserve verdicts on this champion so far, oldest first, e.g. `pass,fail`; `none` before any. */
  readonly reserveVerdicts: string;
  /** What the package command made, or null when its output names no existing path. */
  readonly packagePath: string | null;
}

/** The two error counts on the working test set, from the champion's test report. */
async function errorCounts(champion: PackageChampion, workdir: string): Promise<[string, string]> {
  try {
    const report = await readReport(resolve(workdir, champion.eval_json));
    return [String(report.fail_to_pass_count), String(report.pass_count - report.pass_correct_count)];
  } catch {
    // The report was read when the champion was chosen; one gone since is no reason to skip registering.
    return ['unknown', 'unknown'];
  }
}

/**
 * The reserve verdicts recorded for this champion in the loop's ledger copy. The copy is kept
 * from history by the orchestrator worker and may trail it by a moment: "so far" is as of now.
 */
async function reserveVerdicts(champion: PackageChampion, stateDir: string): Promise<string> {
  let text: string;
  try {
    text = await readFile(join(stateDir, LEDGER_FILE), 'utf8');
  } catch {
    return 'unknown (no ledger copy)';
  }
  const verdicts: string[] = [];
  for (const line of text.split('\n')) {
    if (!line.includes('"reserve_check"')) continue;
    try {
      const row = JSON.parse(line) as Record<string, unknown>;
      if (
        row.type === 'reserve_check' &&
        row.generation === champion.generation &&
        row.run_id === champion.run_id &&
        row.checkpoint_name === champion.checkpoint_name
      )
        verdicts.push(String(row.verdict));
    } catch {
      // A line being written as we read: the next registration sees it.
    }
  }
  return verdicts.length > 0 ? verdicts.join(',') : 'none';
}

export async function championFacts(
  champion: PackageChampion,
  paths: LoopPaths,
  packageLog: string,
): Promise<ChampionFacts> {
  const [[failToPass, passToFail], verdicts, packagePath] = await Promise.all([
    errorCounts(champion, paths.workdir),
    reserveVerdicts(champion, paths.stateDir),
    packagePathFromLog(packageLog, paths.workdir),
  ]);
  return { failToPass, passToFail, reserveVerdicts: verdicts, packagePath };
}
