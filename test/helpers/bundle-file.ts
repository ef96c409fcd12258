// The orchestrator's workflow bundle as a file, built once by a test run's global set-up (what
// `champion-loop bundle` writes): worker processes start from it (`--workflow-bundle`) instead of
// each bundling its workflows for seconds (test/helpers/worker-processes.ts).
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { WORKFLOWS_PATH } from '../../src/workers/orchestrator-worker.js';
import { writeWorkflowBundle } from '../../src/workers/workflow-bundle.js';

/** Build the bundle into a temp folder: its file, and what removes it. */
export async function buildBundleFile(): Promise<{ file: string; dispose: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-test-bundle-'));
  const file = path.join(dir, 'workflows.js');
  await writeWorkflowBundle(WORKFLOWS_PATH, file);
  return { file, dispose: () => rm(dir, { recursive: true, force: true }) };
}
