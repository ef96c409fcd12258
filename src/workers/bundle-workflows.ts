// `node --import tsx bundle-workflows.ts <workflows.ts> <out.js>`: the workflow bundle, written
// to a file (run by workflow-bundle.ts, so the worker that uses it never loads webpack).
import { writeFile } from 'node:fs/promises';
import { bundleWorkflowCode } from '@temporalio/worker';
import { WORKFLOW_INTERCEPTOR_MODULES } from '../tracing/workflow-interceptors.js';

const [workflowsPath, out] = process.argv.slice(2);
if (!workflowsPath || !out) throw new Error('usage: bundle-workflows.ts <workflows.ts> <out.js>');
const { code } = await bundleWorkflowCode({ workflowsPath, workflowInterceptorModules: WORKFLOW_INTERCEPTOR_MODULES });
await writeFile(out, code);
