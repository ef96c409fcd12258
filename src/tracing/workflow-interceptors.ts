// The workflow interceptor modules every workflow bundle holds (the orchestrator's, the tests',
// the bench's): one bundle whether tracing is on or off, so the replay suite checks the code the
// workers run.
import { fileURLToPath } from 'node:url';

export const WORKFLOW_INTERCEPTOR_MODULES = [
  fileURLToPath(new URL('../workflows/trace-propagation.ts', import.meta.url)),
];
