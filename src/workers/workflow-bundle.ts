// The orchestrator's workflow bundle, built in a short-lived process of its own: webpack and what
// it allocates (a few hundred MiB at its peak) never enter the long-lived worker, whose memory then
// stays what running the loops needs. A bundle can also be built ahead of time into a file
// (`champion-loop bundle --out FILE`) and an orchestrator started from it
// (`worker orchestrator --workflow-bundle FILE`), as production workers are deployed: no webpack
// where it runs, and a start of about a second instead of the bundling's several.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../devserver/project-root.js';

const BUNDLER = fileURLToPath(new URL('./bundle-workflows.ts', import.meta.url));

/** Bundle `workflowsPath` into the file `out`, in a child process (webpack never enters this one). */
export async function writeWorkflowBundle(workflowsPath: string, out: string): Promise<void> {
  const child = await execa(process.execPath, ['--import', 'tsx', BUNDLER, workflowsPath, out], {
    // `--import tsx` resolves from here, whatever the directory the command was started in.
    cwd: PROJECT_ROOT,
    reject: false,
    stdout: 'inherit',
    stderr: 'pipe',
  });
  if (child.exitCode !== 0) {
    throw new Error(
      `bundling the workflows (${workflowsPath}) failed in its own process (exit ${child.exitCode ?? child.signal}):\n${child.stderr}`,
    );
  }
}

/** Bundle `workflowsPath` in a child process; the code, as `Worker.create({ workflowBundle: { code } })` takes it. */
export async function bundleInChildProcess(workflowsPath: string): Promise<{ code: string }> {
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-bundle-'));
  const out = path.join(dir, 'workflows.js');
  try {
    await writeWorkflowBundle(workflowsPath, out);
    return { code: await readFile(out, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** A bundle built ahead of time (`champion-loop bundle`), read once; a file that is none is refused saying what to do. */
export async function prebuiltWorkflowBundle(file: string): Promise<{ code: string }> {
  let code: string;
  try {
    code = await readFile(file, 'utf8');
  } catch (error) {
    throw new Error(
      `--workflow-bundle ${file}: ${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}; ` +
        "build one with 'champion-loop bundle --out FILE'",
      { cause: error },
    );
  }
  // What bundleWorkflowCode writes: one script that registers the workflows' module under this name.
  if (!code.includes('__TEMPORAL__'))
    throw new Error(
      `--workflow-bundle ${file} is not a workflow bundle (no Temporal workflow module in it); build one with 'champion-loop bundle --out FILE'`,
    );
  return { code };
}
