// What a step moves through the artifact store (loop.yaml `artifacts:`, docs/artifacts.md, "A
// fleet without a shared disk"): before its command runs, the files its rows name that this
// host lacks are fetched; after, the files a later step on another host reads are uploaded, by
// content, before the step's outcome is returned (a row recorded done names files in the store).
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isCacheFile } from '../../artifacts/cache-policy.js';
import { runFilesFor, type FileRef } from '../../artifacts/file-ref.js';
import { fetchFiles, publishFiles } from '../../artifacts/file-store.js';
import { usingStore } from '../../artifacts/object-store.js';
import type { ArtifactSettings } from '../../artifacts/store-settings.js';
import { evalScoresPath } from '../../ledger/eval-row.js';
import type { EvalRow } from '../../rules/types.js';
import { exists } from './move-aside.js';
import { validationFile } from './run-dir.js';
import { isCheckpointName } from '../../contract/selection.js';
import { appendLogLine } from './reports.js';
import { withStore } from './store-retry.js';

/** A step log's line for the files it fetched from the store. */
export function fetchedLine(bytes: number, files: number): string {
  return `artifacts: fetched ${bytes} bytes of ${files} files from the store`;
}

/** A step log's line for the files it put in the store (bytes actually sent: the store had the rest). */
export function uploadedLine(files: number, bytes: number): string {
  return `artifacts: ${files} files in the store (${bytes} bytes uploaded)`;
}

/** What a step log's lines say it moved through the store, in bytes (the bench's figures). */
export function logTraffic(text: string): { uploaded: number; fetched: number } {
  let uploaded = 0;
  let fetched = 0;
  for (const match of text.matchAll(/ artifacts: fetched (\d+) bytes of \d+ files from the store$/gm))
    fetched += Number(match[1]);
  for (const match of text.matchAll(/ artifacts: \d+ files in the store \((\d+) bytes uploaded\)$/gm))
    uploaded += Number(match[1]);
  return { uploaded, fetched };
}

/** Fetches the files a step reads onto this host (a store that is down is waited for). */
export async function fetchStepFiles(settings: ArtifactSettings, refs: readonly FileRef[], log: string): Promise<void> {
  if (refs.length === 0) return;
  const traffic = await withStore(settings, log, 'fetch', (store) => fetchFiles(store, refs));
  if (traffic.fetched > 0) await appendLogLine(log, fetchedLine(traffic.fetched, refs.length));
}

/** Uploads files by content; their refs, in order. */
export async function uploadStepFiles(
  settings: ArtifactSettings,
  paths: readonly string[],
  log: string,
): Promise<FileRef[]> {
  if (paths.length === 0) return [];
  const { refs, traffic } = await withStore(settings, log, 'upload', (store) => publishFiles(store, paths));
  await appendLogLine(log, uploadedLine(paths.length, traffic.uploaded));
  return refs;
}

/**
 * Uploads files by content once, for a step that must not wait for the store itself (the
 * orchestrator's short activities): a store that fails throws its ArtifactStoreError.
 */
export async function uploadOnce(settings: ArtifactSettings, paths: readonly string[]): Promise<FileRef[]> {
  return (await usingStore(settings, (store) => publishFiles(store, paths))).refs;
}

/** Every file under a run directory, sorted: its checkpoints and what the trainer wrote beside them (not the host cache's markers). */
export async function runDirFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile() && !isCacheFile(entry.name))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/**
 * The files of an ok eval row another host needs to use its checkpoint: the run's inputs (job
 * config, split), the checkpoint itself and its validation files (from the run's files: a
 * reserve check's band scores), its report and its scores.
 */
export async function evalRowFiles(
  settings: ArtifactSettings,
  stateDir: string,
  row: EvalRow,
  runFiles: readonly FileRef[],
  runDir: string,
  log: string,
): Promise<FileRef[]> {
  // An ensemble's "checkpoint" is its manifest: it has no validation files of its own.
  const validation = isCheckpointName(row.checkpoint_name)
    ? [validationFile(runDir, row.checkpoint_name, 'json'), validationFile(runDir, row.checkpoint_name, 'scores.jsonl')]
    : [];
  const kept = runFilesFor(runFiles, runDir, [row.checkpoint, ...validation]);
  const scores = evalScoresPath(stateDir, row.run_id, row.checkpoint_name, row.role);
  const outputs = [row.eval_json, ...((await exists(scores)) ? [scores] : [])];
  return [...kept, ...(await uploadStepFiles(settings, outputs, log))];
}
