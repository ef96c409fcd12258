// champion-loop bundle: one command of the CLI (src/client/main.ts adds them all).
import { stat } from 'node:fs/promises';
import path from 'node:path';
import type { Command } from 'commander';
import { deploymentVersion } from '../../workers/deployment.js';
import { WORKFLOWS_PATH } from '../../workers/orchestrator-worker.js';
import { prebuiltWorkflowBundle, writeWorkflowBundle } from '../../workers/workflow-bundle.js';

/** `champion-loop bundle`. */
export function addBundleCommand(program: Command): void {
  program
    .command('bundle')
    .description(
      "write the orchestrator's workflow bundle ahead of time, for 'worker orchestrator --workflow-bundle FILE' (no webpack where the worker runs, a start of about a second)",
    )
    .requiredOption('--out <file>', 'where to write it (e.g. workflows.js)')
    .action(async (options: { out: string }) => {
      const out = path.resolve(options.out);
      await writeWorkflowBundle(WORKFLOWS_PATH, out);
      const { code } = await prebuiltWorkflowBundle(out);
      const { size } = await stat(out);
      console.log(
        `wrote ${options.out} (${(size / 1024 / 1024).toFixed(1)} MiB; with Worker Versioning its build id is ${deploymentVersion(code, undefined, {}).buildId}): ` +
          `start an orchestrator from it with 'champion-loop worker orchestrator --workflow-bundle ${options.out}'`,
      );
    });
}
