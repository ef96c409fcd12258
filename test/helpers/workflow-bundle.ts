import { bundleWorkflowCode, type WorkflowBundleWithSourceMap } from '@temporalio/worker';
import { fileURLToPath } from 'node:url';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../../src/tracing/workflow-interceptors.js';

let bundle: Promise<WorkflowBundleWithSourceMap> | undefined;

/** The workflow bundle the workers run, built once per test file. */
export function workflowBundle(): Promise<WorkflowBundleWithSourceMap> {
  bundle ??= bundleWorkflowCode({
    workflowsPath: fileURLToPath(new URL('../../src/workflows/index.ts', import.meta.url)),
    workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES,
    logger: {
      log: () => undefined,
      trace: () => undefined,
      debug: () => undefined,
      info: () => undefined,
      warn: console.warn,
      error: console.error,
    },
  });
  return bundle;
}
