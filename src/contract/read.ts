import { readFileText } from '../config/read-file.js';
import { ContractError } from './errors.js';
import { parseJobs, type EvalJob } from './jobs.js';
import { parseManifest, type Manifest } from './manifest.js';
import { parsePareto, type Pareto } from './pareto.js';
import { parseReport, type Report } from './report.js';
import { parseScores, type ScoresRow } from './scores.js';
import { parseSelection, type Selection } from './selection.js';
import { parseValidationEpoch, type ValidationEpoch } from './validation-epoch.js';

// Each reader throws one ContractError; its `kind` tells a missing file from a broken one.

/** Reads an evaluator report. */
export async function readReport(path: string): Promise<Report> {
  return parseReport(await readFileText(path, ContractError), path);
}

/** Reads a scores JSONL file. */
export async function readScores(path: string): Promise<ScoresRow[]> {
  return parseScores(await readFileText(path, ContractError), path);
}

/** Reads a run's selection.json. */
export async function readSelection(path: string): Promise<Selection> {
  return parseSelection(await readFileText(path, ContractError), path);
}

/** Reads a run's pareto.json. */
export async function readPareto(path: string): Promise<Pareto> {
  return parsePareto(await readFileText(path, ContractError), path);
}

/** Reads an ensemble manifest. */
export async function readManifest(path: string): Promise<Manifest> {
  return parseManifest(await readFileText(path, ContractError), path);
}

/** Reads one epoch's validation metrics. */
export async function readValidationEpoch(path: string): Promise<ValidationEpoch> {
  return parseValidationEpoch(await readFileText(path, ContractError), path);
}

/** Reads a batch evaluator's jobs file. */
export async function readJobs(path: string): Promise<EvalJob[]> {
  return parseJobs(await readFileText(path, ContractError), path);
}
