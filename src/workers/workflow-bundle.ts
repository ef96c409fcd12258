// The orchestrator's workflow bundle, built in a short-lived process of its own: webpack and what
// it allocates (a few hundred MiB at its peak) never enter the long-lived worker, whose memory then
// stays what running the loops needs. The bundle goes through a temp file the worker reads once.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { execa } from 'execa';
import { PROJECT_ROOT } from '../devserver/project-root.js';

const BUNDLER = fileURLToPath(new URL('./bundle-workflows.ts', import.meta.url));

/** Bundle `workflowsPath` in a child process; the code, as `Worker.create({ workflowBundle: { code } })` takes it. */
export async function bundleInChildProcess(workflowsPath: string): Promise<{ code: string }> {
  // A bundle built beforehand, on a machine that carries no webpack (scripts/gpu-run/pack.sh builds
  // it with `node --import tsx src/workers/bundle-workflows.ts $PWD/src/workflows/index.ts FILE`).
  const prebuilt = process.env.CHAMPION_LOOP_WORKFLOW_BUNDLE;
  if (prebuilt) return { code: await readFile(prebuilt, 'utf8') };
  const dir = await mkdtemp(path.join(tmpdir(), 'champion-loop-bundle-'));
  const out = path.join(dir, 'workflows.js');
  try {
    const child = await execa(process.execPath, ['--import', 'tsx', BUNDLER, workflowsPath, out], {
      // `--import tsx` resolves from here, whatever the directory the worker was started in.
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
    return { code: await readFile(out, 'utf8') };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
